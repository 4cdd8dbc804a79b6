/// Jobs of many clients, served round-robin with a cap on how many of one
/// client's jobs may run at once, so that one client's slow jobs cannot take
/// every worker from the others.
///
/// A pure value: the owner keeps it under its lock and asks it what to run next.
///
/// ```swift
/// var queue = FairQueue<String>(perClientLimit: 2)
/// queue.enqueue("a1", for: ":1.7"); queue.enqueue("a2", for: ":1.7"); queue.enqueue("b1", for: ":1.9")
/// queue.next()   // (":1.7", "a1")
/// queue.next()   // (":1.9", "b1"): the other client's turn
/// ```
struct FairQueue<Job> {
    let perClientLimit: Int
    private var pending: [String: [Job]] = [:]
    /// Clients with pending jobs, in the order they get their next turn.
    private var turns: [String] = []
    private var running: [String: Int] = [:]

    init(perClientLimit: Int) {
        precondition(perClientLimit > 0)
        self.perClientLimit = perClientLimit
    }

    var pendingCount: Int { pending.values.reduce(0) { $0 + $1.count } }

    /// How many jobs of `client` are running now.
    func runningCount(of client: String) -> Int { running[client, default: 0] }

    /// How many pending jobs could start now, each client counted up to its free places:
    /// the number of workers that could be busy at once if there were enough of them.
    var runnableCount: Int {
        pending.reduce(0) { sum, entry in
            sum + min(entry.value.count, max(0, perClientLimit - running[entry.key, default: 0]))
        }
    }

    mutating func enqueue(_ job: Job, for client: String) {
        if pending[client] == nil {
            pending[client] = []
            turns.append(client)
        }
        pending[client]!.append(job)
    }

    /// The next job to run: the first client in turn that is under its cap.
    /// That client goes to the back of the line, and its job counts as running.
    mutating func next() -> (client: String, job: Job)? {
        guard let index = turns.firstIndex(where: { running[$0, default: 0] < perClientLimit }) else { return nil }
        let client = turns.remove(at: index)
        let job = pending[client]!.removeFirst()
        if pending[client]!.isEmpty {
            pending[client] = nil
        } else {
            turns.append(client)
        }
        running[client, default: 0] += 1
        return (client, job)
    }

    /// A job of `client` has finished (or given up its worker).
    mutating func finished(_ client: String) {
        let count = running[client, default: 1] - 1
        running[client] = count > 0 ? count : nil
    }
}
