import Glibc

/// A few long-lived threads that run blocking lookups, in arrival order.
///
/// Long-lived rather than one per lookup: no thread is created per name, and
/// the malloc arenas and stacks that threads bring stay a fixed few. Threads
/// start on demand up to `maximum` and then wait on a condition variable (no
/// timers, no system calls while idle).
final class ResolverThreads: @unchecked Sendable {
    // Why @unchecked Sendable is safe: `queue`, `idle` and `started` are read
    // and written only while `mutex` is held; `maximum` is a constant. The
    // mutex and condition live in allocated memory because pthread objects
    // must not move, and `&property` promises no stable address.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let wakeUp = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var queue: [@Sendable () -> Void] = []
    private var idle = 0
    private var started = 0
    private let maximum: Int

    init(maximum: Int) {
        self.maximum = maximum
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(wakeUp, nil)
    }

    /// Runs `job` on one of the threads; jobs wait their turn when all are busy.
    func run(_ job: @escaping @Sendable () -> Void) {
        pthread_mutex_lock(mutex)
        queue.append(job)
        let startAnother = idle == 0 && started < maximum
        if startAnother { started += 1 }
        pthread_cond_signal(wakeUp)
        pthread_mutex_unlock(mutex)
        if startAnother { startThread() }
    }

    private func work() -> Never {
        while true {
            pthread_mutex_lock(mutex)
            idle += 1
            while queue.isEmpty { pthread_cond_wait(wakeUp, mutex) }
            idle -= 1
            let job = queue.removeFirst()
            pthread_mutex_unlock(mutex)
            job()
        }
    }

    private func startThread() {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { context in
            Unmanaged<ResolverThreads>.fromOpaque(context!).takeRetainedValue().work()
        }, context)
        precondition(result == 0, "pthread_create failed for a resolver thread: \(result)")
        pthread_detach(thread)
    }
}
