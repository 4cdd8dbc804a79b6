import Glibc

/// A few threads that run blocking lookups, fairly between clients, and one that keeps time.
///
/// Jobs wait in a `FairQueue`: round-robin between clients, at most `perClientLimit` of one
/// client's lookups on a thread at once, at most `queuedLimit` of one client's capped lookups
/// waiting. A lookup blocked in getaddrinfo keeps its thread (it cannot be cancelled), so the
/// running cap is what keeps one client's unanswered names from holding every thread; the
/// waiting cap is what keeps them from making the queue, and reachd's memory, as long as they like.
///
/// Lookup threads start on demand up to `maximum`, wait on a condition variable (no timers, no
/// system calls while work is queued or running), and exit after `idleLifetime` without work,
/// so an idle reachd is one thread again. While anything waits or runs, one more thread keeps
/// the deadlines: a job that waited `waitLimit` is dropped from the queue at that moment, and one
/// that ran `runLimit` is told so (its thread stays with getaddrinfo). Timing them here, not with
/// a timer task per lookup, costs the caller's event loop nothing however many lookups wait.
final class ResolverThreads: @unchecked Sendable {
    // Why @unchecked Sendable is safe: `queue`, `running`, `idle`, `starting`, `started`,
    // `keeping` and `activity` are read and written only while `mutex` is held; the rest are
    // constants. The mutex and conditions live in allocated memory because pthread objects must
    // not move, and `&property` promises no stable address.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let wakeUp = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let wakeKeeper = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var queue: FairQueue<Job>
    /// The jobs on a thread now, with the moment each runs out of time (at most `maximum`).
    private var running: [(ticket: FairQueue<Job>.Ticket, deadline: UInt64, job: Job)] = []
    private var idle = 0
    /// Threads created that have not yet looked at the queue: they will take a job as idle
    /// ones do, so they count as coverage for runnable jobs too.
    private var starting = 0
    private var started = 0
    /// Whether the keeper thread is alive.
    private var keeping = false
    /// Jobs queued or refused since the memory was last given back.
    private var activity = 0
    private let maximum: Int
    private let idleLifetime: Duration
    private let runLimit: UInt64
    private let releaseMemory: @Sendable () -> Void

    /// A lookup as the threads see it: what to run, and what to say instead when it cannot run.
    struct Job: Sendable {
        let run: @Sendable () -> Void
        /// Called once, without the lock, when the job left the queue without running.
        let dropped: @Sendable (DropReason) -> Void
        /// Called once, without the lock, when the job has run `runLimit` and not returned.
        let timedOut: @Sendable () -> Void
    }

    enum DropReason: Sendable {
        /// It waited `waitLimit` for its turn.
        case expired
        /// Its caller left the bus.
        case callerLeft
    }

    /// After this many lookups queued or refused, the memory they used is given back to the
    /// system the next time the queue is empty (a flood's worth; a few lookups leave nothing to
    /// give, and a trim every thousand lookups costs nothing worth counting).
    static let floodSize = 1024

    init(maximum: Int, perClientLimit: Int, queuedLimit: Int = .max, waitLimit: Duration = .seconds(20),
         runLimit: Duration = .seconds(5), idleLifetime: Duration, releaseMemory: @escaping @Sendable () -> Void = {}) {
        self.maximum = maximum
        self.idleLifetime = idleLifetime
        self.runLimit = Self.nanoseconds(runLimit)
        self.releaseMemory = releaseMemory
        self.queue = FairQueue(perClientLimit: perClientLimit, queuedLimit: queuedLimit,
                               waitLimit: Self.nanoseconds(waitLimit))
        pthread_mutex_init(mutex, nil)
        // Deadlines are monotonic: a change of the wall clock neither expires nor keeps a lookup.
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(wakeUp, &attributes)
        pthread_cond_init(wakeKeeper, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    /// Threads alive now (lookup threads, running or idle, and the keeper).
    var threadCount: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return started + (keeping ? 1 : 0)
    }

    /// Lookups waiting for a thread now, all clients together.
    var queuedCount: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return queue.pendingCount
    }

    /// Whether a capped job of `client` would be refused now: `queuedLimit` of its jobs wait.
    func isFull(for client: String) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return queue.queuedCount(of: client) >= queue.queuedLimit
    }

    /// Runs `job` for `client` on one of the threads, when its turn comes; false (and `job` is
    /// never called) when it is `capped` and `client` already has `queuedLimit` lookups waiting.
    ///
    /// Threads are started for every job that could run now and that no idle (or just started)
    /// thread will take. Asking only "can this job run, and is anyone idle?" left a hole: a
    /// burst of one client's jobs arriving while one thread was idle started no thread at all,
    /// so that client's second job waited, and the next client's job then started a thread
    /// that the round-robin handed back to the first client (issue 29, 7b).
    @discardableResult
    func run(for client: String, caller: String? = nil, capped: Bool = false, _ job: Job) -> Bool {
        pthread_mutex_lock(mutex)
        activity += 1
        guard queue.enqueue(job, for: client, caller: caller, capped: capped, now: Self.now()) != nil else {
            pthread_mutex_unlock(mutex)
            return false
        }
        let uncovered = queue.runnableCount - idle - starting
        let toStart = max(0, min(uncovered, maximum - started))
        started += toStart
        starting += toStart
        let startKeeper = !keeping
        keeping = true
        pthread_cond_broadcast(wakeUp)
        // A keeper waiting only for running jobs has a deadline to keep now.
        pthread_cond_signal(wakeKeeper)
        pthread_mutex_unlock(mutex)
        for _ in 0..<toStart { startThread { $0.work() } }
        if startKeeper { startThread { $0.keepTime() } }
        return true
    }

    /// Drops every waiting lookup of `caller` (its connection left): each hears `.callerLeft`.
    func callerLeft(_ caller: String) {
        pthread_mutex_lock(mutex)
        let dropped = queue.removeAll(of: caller)
        pthread_mutex_unlock(mutex)
        for job in dropped { job.dropped(.callerLeft) }
    }

    private func work() {
        pthread_mutex_lock(mutex)
        starting -= 1
        while true {
            guard let (ticket, client, job) = waitForJob() else {
                started -= 1
                pthread_mutex_unlock(mutex)
                return
            }
            running.append((ticket, Self.now() + runLimit, job))
            // The keeper may be asleep until a later deadline than this one.
            pthread_cond_signal(wakeKeeper)
            pthread_mutex_unlock(mutex)
            job.run()
            pthread_mutex_lock(mutex)
            running.removeAll { $0.ticket == ticket }
            queue.finished(client)
            // The client's next job may run now; an idle thread or this one takes it.
            pthread_cond_broadcast(wakeUp)
            if queue.isIdle { pthread_cond_signal(wakeKeeper) }
        }
    }

    /// With the mutex held: the next runnable job, or nil once this thread has
    /// been idle for `idleLifetime`.
    private func waitForJob() -> (FairQueue<Job>.Ticket, String, Job)? {
        var deadline = Self.timespec(at: Self.now() + Self.nanoseconds(idleLifetime))
        while true {
            if let next = queue.next() { return next }
            idle += 1
            let result = pthread_cond_timedwait(wakeUp, mutex, &deadline)
            idle -= 1
            if result == ETIMEDOUT, let next = queue.next() { return next }
            if result == ETIMEDOUT { return nil }
        }
    }

    /// The keeper: drops jobs that waited too long, tells running ones that ran too long, and
    /// leaves once nothing waits or runs, giving the memory of a flood back as it goes.
    private func keepTime() {
        pthread_mutex_lock(mutex)
        while true {
            let now = Self.now()
            let expired = queue.expire(now: now)
            var late: [Job] = []
            running.removeAll { entry in
                guard entry.deadline <= now else { return false }
                late.append(entry.job)
                return true
            }
            if !expired.isEmpty || !late.isEmpty {
                pthread_mutex_unlock(mutex)
                for job in expired { job.dropped(.expired) }
                for job in late { job.timedOut() }
                pthread_mutex_lock(mutex)
                continue
            }
            if queue.isIdle {
                keeping = false
                let flood = activity >= Self.floodSize
                if flood { activity = 0 }
                pthread_mutex_unlock(mutex)
                // The queue's own storage is gone; what the callers' messages and tasks used is
                // free but still the process's until malloc is asked to give it back.
                if flood { releaseMemory() }
                return
            }
            let next = [queue.nextDeadline, running.map(\.deadline).min()].compactMap { $0 }.min()
            if let next {
                var deadline = Self.timespec(at: next)
                pthread_cond_timedwait(wakeKeeper, mutex, &deadline)
            } else {
                // Jobs run with no deadline left (told already): wait for them to return.
                pthread_cond_wait(wakeKeeper, mutex)
            }
        }
    }

    private func startThread(_ body: @escaping (ResolverThreads) -> Void) {
        let context = Unmanaged.passRetained(ThreadStart(threads: self, body: body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { context in
            let start = Unmanaged<ThreadStart>.fromOpaque(context!).takeRetainedValue()
            start.body(start.threads)
            return nil
        }, context)
        precondition(result == 0, "pthread_create failed for a resolver thread: \(result)")
        pthread_detach(thread)
    }

    private final class ThreadStart {
        let threads: ResolverThreads
        let body: (ResolverThreads) -> Void
        init(threads: ResolverThreads, body: @escaping (ResolverThreads) -> Void) {
            self.threads = threads
            self.body = body
        }
    }

    // MARK: Time

    /// CLOCK_MONOTONIC in nanoseconds, the clock the conditions wait on.
    private static func now() -> UInt64 {
        var time = Glibc.timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    private static func timespec(at nanoseconds: UInt64) -> Glibc.timespec {
        Glibc.timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let (product, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max / 2 : product + UInt64(attoseconds / 1_000_000_000)
    }
}
