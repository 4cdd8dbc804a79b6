/// Jobs of many clients waiting for a worker: served round-robin between clients, at most
/// `perClientLimit` of one client's jobs running at once (so one client's slow jobs cannot take
/// every worker from the others), at most `queuedLimit` of one client's capped jobs waiting
/// (beyond it `enqueue` refuses, so one client cannot make everyone's queue long), and each job
/// dropped at once when its deadline passes or its caller leaves.
///
/// Every operation costs the same however many jobs wait (issue 40: a dequeue that was linear in
/// the queue, run 32,768 times, stalled every other caller): the jobs are linked in two orders,
/// their client's line and their deadline's, through one dictionary, so taking the next, removing
/// one from the middle and expiring the oldest are each a few dictionary operations. Clients take
/// turns in a line of their own, each in it at most once. Once empty, the storage is dropped, not
/// kept at the size of the largest flood.
///
/// A pure value: the owner keeps it under its lock, asks it what to run next and when the next
/// deadline is, and tells it the time.
///
/// ```swift
/// var queue = FairQueue<String>(perClientLimit: 2, queuedLimit: 256, waitLimit: 20_000_000_000)
/// _ = queue.enqueue("a1", for: "uid 1000", now: 0); _ = queue.enqueue("a2", for: "uid 1000", now: 0)
/// _ = queue.enqueue("b1", for: "uid 1001", now: 0)
/// queue.next()?.job   // "a1"
/// queue.next()?.job   // "b1": the other client's turn
/// ```
struct FairQueue<Job> {
    /// One waiting job's handle, for removing it.
    typealias Ticket = UInt64
    /// Monotonic nanoseconds.
    typealias Instant = UInt64

    let perClientLimit: Int
    let queuedLimit: Int
    let waitLimit: Instant

    private struct Entry {
        let job: Job
        let client: String
        let caller: String?
        let deadline: Instant
        /// Neighbours in the client's line.
        var earlier: Ticket?
        var later: Ticket?
        /// Neighbours in deadline order (which is arrival order: every job waits as long).
        var older: Ticket?
        var newer: Ticket?
    }

    /// One client's waiting jobs (first to last) and running count.
    private struct Line {
        var first: Ticket?
        var last: Ticket?
        var queued = 0
        var running = 0
        /// Whether the client is in `turns` (at most once).
        var hasTurn = false
    }

    private var entries: [Ticket: Entry] = [:]
    private var lines: [String: Line] = [:]
    private var byCaller: [String: Set<Ticket>] = [:]
    private var oldest: Ticket?
    private var newest: Ticket?
    private var nextTicket: Ticket = 1
    /// Clients that may run a job now, in the order of their turns; a client whose jobs went
    /// (expired, caller left) is skipped when its turn comes.
    private var turns: [String] = []
    private var turnsStart = 0
    private var runnable = 0

    init(perClientLimit: Int, queuedLimit: Int = .max, waitLimit: Instant = .max) {
        precondition(perClientLimit > 0 && queuedLimit > 0)
        self.perClientLimit = perClientLimit
        self.queuedLimit = queuedLimit
        self.waitLimit = waitLimit
    }

    /// Jobs waiting, all clients together.
    var pendingCount: Int { entries.count }

    /// Jobs of `client` waiting now.
    func queuedCount(of client: String) -> Int { lines[client]?.queued ?? 0 }

    /// How many jobs of `client` are running now.
    func runningCount(of client: String) -> Int { lines[client]?.running ?? 0 }

    /// Whether nothing waits and nothing runs.
    var isIdle: Bool { entries.isEmpty && lines.isEmpty }

    /// How many pending jobs could start now, each client counted up to its free places:
    /// the number of workers that could be busy at once if there were enough of them.
    var runnableCount: Int { runnable }

    /// When the oldest waiting job expires, nil when none waits.
    var nextDeadline: Instant? { oldest.map { entries[$0]!.deadline } }

    /// Queues `job` of `client` (the account it counts against) for `caller` (the connection
    /// whose departure drops it), to wait at most `waitLimit` from `now`. A `capped` job is
    /// refused (nil) when `queuedLimit` of the client's jobs already wait; one that is not
    /// (a host monitor's, bounded by the monitor caps) always waits, and counts for the others.
    @discardableResult
    mutating func enqueue(_ job: Job, for client: String, caller: String? = nil, capped: Bool = false,
                          now: Instant) -> Ticket? {
        var line = lines[client] ?? Line()
        if capped, line.queued >= queuedLimit { return nil }
        let ticket = nextTicket
        nextTicket += 1
        // Never earlier than the newest: deadline order stays arrival order even when callers'
        // clocks were read a little out of order.
        let deadline = max(now.addingReportingOverflow(waitLimit).overflow ? .max : now + waitLimit,
                           newest.map { entries[$0]!.deadline } ?? 0)
        entries[ticket] = Entry(job: job, client: client, caller: caller, deadline: deadline,
                                earlier: line.last, later: nil, older: newest, newer: nil)
        if let last = line.last { entries[last]!.later = ticket } else { line.first = ticket }
        line.last = ticket
        if let newest { entries[newest]!.newer = ticket } else { oldest = ticket }
        newest = ticket
        if let caller { byCaller[caller, default: []].insert(ticket) }
        update(client, to: { $0.queued += 1 }, from: line)
        return ticket
    }

    /// The next job to run: the first client in turn that is under its cap. That client goes to
    /// the back of the line, and its job counts as running.
    mutating func next() -> (ticket: Ticket, client: String, job: Job)? {
        while turnsStart < turns.count {
            let client = turns[turnsStart]
            turnsStart += 1
            guard var line = lines[client] else { continue }
            line.hasTurn = false
            guard let ticket = line.first, line.running < perClientLimit else {
                lines[client] = line
                continue
            }
            let entry = unlink(ticket, in: &line)
            update(client, to: { $0.running += 1 }, from: line)
            compactTurns()
            return (ticket, client, entry.job)
        }
        compactTurns()
        return nil
    }

    /// A job of `client` has finished (or given up its worker).
    mutating func finished(_ client: String) {
        guard let line = lines[client], line.running > 0 else { return }
        update(client, to: { $0.running -= 1 }, from: line)
    }

    /// Takes a waiting job out of the queue; nil when it is no longer waiting.
    mutating func remove(_ ticket: Ticket) -> Job? {
        guard let client = entries[ticket]?.client, var line = lines[client] else { return nil }
        let entry = unlink(ticket, in: &line)
        update(client, to: { _ in }, from: line)
        return entry.job
    }

    /// Takes every job whose deadline is `now` or earlier out of the queue, oldest first.
    mutating func expire(now: Instant) -> [Job] {
        var expired: [Job] = []
        while let ticket = oldest, entries[ticket]!.deadline <= now, let job = remove(ticket) {
            expired.append(job)
        }
        return expired
    }

    /// Takes every waiting job of `caller` out of the queue (its connection left).
    mutating func removeAll(of caller: String) -> [Job] {
        guard let tickets = byCaller[caller] else { return [] }
        return tickets.sorted().compactMap { remove($0) }
    }

    // MARK: Bookkeeping

    /// Unlinks `ticket` from both orders and from its caller's set; `line` is its client's.
    private mutating func unlink(_ ticket: Ticket, in line: inout Line) -> Entry {
        let entry = entries.removeValue(forKey: ticket)!
        if let earlier = entry.earlier { entries[earlier]!.later = entry.later } else { line.first = entry.later }
        if let later = entry.later { entries[later]!.earlier = entry.earlier } else { line.last = entry.earlier }
        if let older = entry.older { entries[older]!.newer = entry.newer } else { oldest = entry.newer }
        if let newer = entry.newer { entries[newer]!.older = entry.older } else { newest = entry.older }
        if let caller = entry.caller {
            byCaller[caller]?.remove(ticket)
            if byCaller[caller]?.isEmpty == true { byCaller[caller] = nil }
        }
        line.queued -= 1
        if entries.isEmpty {
            // Release what a flood grew: dictionaries keep their capacity when emptied one by one.
            entries = [:]
            byCaller = [:]
        }
        return entry
    }

    /// Stores `client`'s line after `change`, keeps `runnable` and the turns true, and forgets a
    /// client with nothing waiting or running.
    private mutating func update(_ client: String, to change: (inout Line) -> Void, from line: Line) {
        var line = line
        let before = lines[client].map(places) ?? 0
        change(&line)
        runnable += places(line) - before
        if line.queued > 0, line.running < perClientLimit, !line.hasTurn {
            line.hasTurn = true
            turns.append(client)
        }
        if line.queued == 0, line.running == 0 {
            lines[client] = nil
            if lines.isEmpty { lines = [:] }
        } else {
            lines[client] = line
        }
    }

    private func places(_ line: Line) -> Int {
        min(line.queued, max(0, perClientLimit - line.running))
    }

    /// Drops the turns already taken once they are half the array (each turn is appended once and
    /// taken once, so this is constant work per turn), and the array's storage once empty.
    private mutating func compactTurns() {
        if turnsStart == turns.count {
            turns = []
            turnsStart = 0
        } else if turnsStart > 32, turnsStart * 2 > turns.count {
            turns.removeFirst(turnsStart)
            turnsStart = 0
        }
    }
}
