import Glibc

/// A few threads that run blocking lookups, fairly between clients.
///
/// Jobs wait in a `FairQueue`: round-robin between clients, at most
/// `perClientLimit` of one client's lookups on a thread at once. A lookup
/// blocked in getaddrinfo keeps its thread (it cannot be cancelled), so the
/// cap is what keeps one client's unanswered names from holding every thread.
///
/// Threads start on demand up to `maximum`, wait on a condition variable (no
/// timers, no system calls while work is queued or running), and exit after
/// `idleLifetime` without work, so an idle reachd is one thread again.
final class ResolverThreads: @unchecked Sendable {
    // Why @unchecked Sendable is safe: `queue`, `idle` and `started` are read
    // and written only while `mutex` is held; the rest are constants. The
    // mutex and condition live in allocated memory because pthread objects
    // must not move, and `&property` promises no stable address.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let wakeUp = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var queue: FairQueue<@Sendable () -> Void>
    private var idle = 0
    /// Threads created that have not yet looked at the queue: they will take a job as idle
    /// ones do, so they count as coverage for runnable jobs too.
    private var starting = 0
    private var started = 0
    private let maximum: Int
    private let idleLifetime: Duration

    init(maximum: Int, perClientLimit: Int, idleLifetime: Duration) {
        self.maximum = maximum
        self.idleLifetime = idleLifetime
        self.queue = FairQueue(perClientLimit: perClientLimit)
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(wakeUp, nil)
    }

    /// Threads alive now (running or idle).
    var threadCount: Int {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return started
    }

    /// Runs `job` for `client` on one of the threads, when its turn comes.
    ///
    /// Threads are started for every job that could run now and that no idle (or just started)
    /// thread will take. Asking only "can this job run, and is anyone idle?" left a hole: a
    /// burst of one client's jobs arriving while one thread was idle started no thread at all,
    /// so that client's second job waited, and the next client's job then started a thread
    /// that the round-robin handed back to the first client (issue 29, 7b).
    func run(for client: String, _ job: @escaping @Sendable () -> Void) {
        pthread_mutex_lock(mutex)
        queue.enqueue(job, for: client)
        let uncovered = queue.runnableCount - idle - starting
        let toStart = max(0, min(uncovered, maximum - started))
        started += toStart
        starting += toStart
        pthread_cond_broadcast(wakeUp)
        pthread_mutex_unlock(mutex)
        for _ in 0..<toStart { startThread() }
    }

    private func work() {
        pthread_mutex_lock(mutex)
        starting -= 1
        while true {
            guard let (client, job) = waitForJob() else {
                started -= 1
                pthread_mutex_unlock(mutex)
                return
            }
            pthread_mutex_unlock(mutex)
            job()
            pthread_mutex_lock(mutex)
            queue.finished(client)
            // The client's next job may run now; an idle thread or this one takes it.
            pthread_cond_broadcast(wakeUp)
        }
    }

    /// With the mutex held: the next runnable job, or nil once this thread has
    /// been idle for `idleLifetime`.
    private func waitForJob() -> (String, @Sendable () -> Void)? {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let (seconds, attoseconds) = idleLifetime.components
        deadline.tv_sec += Int(seconds)
        deadline.tv_nsec += Int(attoseconds / 1_000_000_000)
        if deadline.tv_nsec >= 1_000_000_000 { deadline.tv_sec += 1; deadline.tv_nsec -= 1_000_000_000 }
        while true {
            if let next = queue.next() { return next }
            idle += 1
            let result = pthread_cond_timedwait(wakeUp, mutex, &deadline)
            idle -= 1
            if result == ETIMEDOUT, let next = queue.next() { return next }
            if result == ETIMEDOUT { return nil }
        }
    }

    private func startThread() {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { context in
            Unmanaged<ResolverThreads>.fromOpaque(context!).takeRetainedValue().work()
            return nil
        }, context)
        precondition(result == 0, "pthread_create failed for a resolver thread: \(result)")
        pthread_detach(thread)
    }
}
