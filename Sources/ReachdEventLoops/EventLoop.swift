import CReachdEventLoops
import Glibc
import Synchronization

/// One thread that owns a set of file descriptors and runs Swift jobs in order.
///
/// The loop waits in `epoll_wait` on the descriptors registered with it, an
/// eventfd that other threads write to when they queue work, and the
/// earliest timer deadline. With nothing registered and no timers it sleeps
/// without waking: no polling.
///
/// It is also a `SerialExecutor`, so an actor whose `unownedExecutor` is this
/// loop runs every isolated method on the loop thread; that is how
/// `Connection` keeps its libdbus connection confined to one thread. As a
/// `TaskExecutor` it runs the nonisolated code of a task started with
/// `Task(executorPreference: loop)` and of that task's children. A
/// program that wants no other threads at all can make one loop on its main
/// thread and install it as Swift's main and default executor
/// (`EventLoop+Executors.swift`); then nothing in the process wakes up
/// unless a descriptor, a timer or another thread asks it to.
///
/// ```swift
/// let loop = try EventLoop(name: "session-bus")           // its own thread
/// let main = try EventLoop(name: "main", thread: .caller)  // main.run() blocks here
/// ```
public final class EventLoop: SerialExecutor, TaskExecutor, @unchecked Sendable {
    // Why @unchecked Sendable is safe: `queue` is behind a Mutex and
    // `loopThread` is atomic; every other stored property (`handlers`,
    // `timers`, `afterEachTurn`) is read and written only on the loop
    // thread, which `preconditionOnLoop()` asserts at each entry point
    // (`runningJobs` only inside the loop itself).

    private struct Queue {
        var jobs: [UnownedJob] = []
        /// Jobs that other threads asked to run later; the loop moves them
        /// into `timers`, which only it may touch.
        var delayedJobs: [(deadline: ContinuousClock.Instant, job: UnownedJob)] = []
        var stopRequested = false
    }

    /// Which thread runs the loop.
    public enum LoopThread: Sendable {
        /// A thread of its own, started at once.
        case dedicated
        /// Whichever thread calls `run()`, typically the main thread.
        case caller
    }

    /// What the loop calls when a registered descriptor is ready.
    public typealias ReadinessHandler = (_ ready: Readiness) -> Void

    private let name: String
    private let epollDescriptor: Int32
    private let wakeDescriptor: Int32
    private let queue = Mutex(Queue())
    private let loopThread = Atomic<UInt>(0)
    private var handlers: [Int32: ReadinessHandler] = [:]
    private var timers = TimerQueue()
    private var afterEachTurn: [(id: Int, run: () -> Void)] = []
    private var runningJobs: [UnownedJob] = []
    private var nextHookID = 0

    public init(name: String, thread: LoopThread = .dedicated) throws(SystemCallError) {
        self.name = name
        epollDescriptor = try systemCall("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
        do throws(SystemCallError) {
            wakeDescriptor = try systemCall("eventfd") { eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK)) }
        } catch {
            close(epollDescriptor)
            throw error
        }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = wakeDescriptor
        do throws(SystemCallError) {
            // Without it no other thread could wake the loop: not a loop at all.
            try systemCall("epoll_ctl(EPOLL_CTL_ADD, eventfd)") {
                epoll_ctl(epollDescriptor, EPOLL_CTL_ADD, wakeDescriptor, &event)
            }
        } catch {
            close(wakeDescriptor)
            close(epollDescriptor)
            throw error
        }
        if thread == .dedicated { startThread() }
    }

    // MARK: Executor

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let wasIdle = queue.withLock { queue in
            let wasIdle = queue.jobs.isEmpty
            queue.jobs.append(job)
            return wasIdle
        }
        // The loop empties the queue before running jobs, so only the first
        // job of a batch needs to wake it, and never a job queued by the loop
        // itself: it looks at the queue before it next waits.
        if wasIdle && !isOnLoopThread { wake() }
    }

    /// Runs `job` once `deadline` has passed (`Task.sleep` on this executor).
    func enqueue(_ job: UnownedJob, at deadline: ContinuousClock.Instant) {
        if isOnLoopThread {
            scheduleJob(job, at: deadline)
        } else {
            queue.withLock { $0.delayedJobs.append((deadline, job)) }
            wake()
        }
    }

    private func scheduleJob(_ job: UnownedJob, at deadline: ContinuousClock.Instant) {
        _ = timers.schedule(at: deadline) { [unowned self] in runJob(job) }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    // Also the default executor's jobs when the loop is installed as one:
    // they run as if isolated to the loop, which on its one thread they are.
    private func runJob(_ job: UnownedJob) {
        job.runSynchronously(on: asUnownedSerialExecutor())
    }

    public func checkIsolated() {
        preconditionOnLoop()
    }

    public func isIsolatingCurrentContext() -> Bool? {
        isOnLoopThread
    }

    /// True on the loop's own thread.
    public var isOnLoopThread: Bool {
        loopThread.load(ordering: .acquiring) == UInt(pthread_self())
    }

    public func preconditionOnLoop(file: StaticString = #fileID, line: UInt = #line) {
        precondition(isOnLoopThread, "must run on event loop '\(name)'", file: file, line: line)
    }

    // MARK: Descriptors and timers (loop thread only)

    /// Watches `descriptor` for `readiness`; replaces an earlier registration.
    ///
    /// Throws when epoll refuses the descriptor (EBADF: not open; EPERM: a
    /// regular file; ENOSPC: the user's epoll watch limit; ENOMEM); then
    /// nothing is registered, or the earlier registration stays as it was.
    /// The caller decides: a descriptor nobody watches would never be read.
    public func watch(_ descriptor: Int32, for readiness: Readiness, handler: @escaping ReadinessHandler) throws(SystemCallError) {
        preconditionOnLoop()
        var event = epoll_event()
        event.events = readiness.rawValue
        event.data.fd = descriptor
        if handlers[descriptor] != nil {
            do throws(SystemCallError) {
                try systemCall("epoll_ctl(EPOLL_CTL_MOD)") { epoll_ctl(epollDescriptor, EPOLL_CTL_MOD, descriptor, &event) }
                handlers[descriptor] = handler
                return
            } catch where error.errno == ENOENT {
                // The descriptor was closed without unwatch() and its number
                // reused: the close took the old registration with it, so
                // this one is new.
                handlers[descriptor] = nil
            }
        }
        try systemCall("epoll_ctl(EPOLL_CTL_ADD)") { epoll_ctl(epollDescriptor, EPOLL_CTL_ADD, descriptor, &event) }
        handlers[descriptor] = handler
    }

    /// Stops watching `descriptor`. Call it before closing the descriptor:
    /// epoll keeps a registration while any duplicate of the file is open.
    public func unwatch(_ descriptor: Int32) {
        preconditionOnLoop()
        guard handlers.removeValue(forKey: descriptor) != nil else { return }
        do throws(SystemCallError) {
            try systemCall("epoll_ctl(EPOLL_CTL_DEL)") { epoll_ctl(epollDescriptor, EPOLL_CTL_DEL, descriptor, nil) }
        } catch where error.errno == EBADF || error.errno == ENOENT || error.errno == EPERM {
            // Closed first (EBADF), or closed and its number reused (ENOENT; EPERM
            // when the reuser is a regular file, which epoll cannot hold): the last
            // close removed the registration already. Nothing to do.
        } catch {
            // EINVAL for a descriptor we registered means the loop's own epoll
            // descriptor or bookkeeping is broken.
            preconditionFailure("event loop '\(name)': \(error)")
        }
    }

    /// Runs `action` once at `deadline` unless cancelled first.
    @discardableResult
    public func schedule(at deadline: ContinuousClock.Instant, _ action: @escaping () -> Void) -> TimerQueue.TimerID {
        preconditionOnLoop()
        return timers.schedule(at: deadline, action)
    }

    public func cancelTimer(_ id: TimerQueue.TimerID) {
        preconditionOnLoop()
        timers.cancel(id)
    }

    /// Runs `hook` after every turn of the loop (used to dispatch libdbus's
    /// incoming queue once its watches have read from the socket).
    public func addTurnHook(_ hook: @escaping () -> Void) -> Int {
        preconditionOnLoop()
        nextHookID += 1
        afterEachTurn.append((nextHookID, hook))
        return nextHookID
    }

    public func removeTurnHook(_ id: Int) {
        preconditionOnLoop()
        afterEachTurn.removeAll { $0.id == id }
    }

    /// Asks the loop thread to finish the work queued so far and exit.
    public func shutdown() {
        queue.withLock { $0.stopRequested = true }
        wake()
    }

    // MARK: The loop

    /// Makes a sleeping `epoll_wait` return; safe from any thread.
    public func wake() {
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, MemoryLayout<UInt64>.size)
    }

    /// Runs the loop on the calling thread until `shutdown()`, for a loop made
    /// with `thread: .caller`.
    public func run() {
        runLoop()
    }

    private func startThread() {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { context in
            let loop = Unmanaged<EventLoop>.fromOpaque(context!).takeRetainedValue()
            loop.runLoop()
            return nil
        }, context)
        precondition(result == 0, "pthread_create failed for event loop '\(name)': \(result)")
        pthread_detach(thread)
    }

    private static let jobRoundsPerTurn = 64

    private func runLoop() {
        precondition(loopThread.compareExchange(expected: 0, desired: UInt(pthread_self()), ordering: .acquiringAndReleasing).exchanged,
                     "event loop '\(name)' is already running")
        let capacity: Int32 = 64
        var events = [epoll_event](repeating: epoll_event(), count: Int(capacity))
        while true {
            let mustNotSleep = adoptDelayedJobs()
            let timeout = mustNotSleep ? 0 : timers.millisecondsUntilNextDeadline(now: .now)
            let count = epoll_wait(epollDescriptor, &events, capacity, timeout)
            if count > 0 {
                for index in 0..<Int(count) {
                    let descriptor = events[index].data.fd
                    if descriptor == wakeDescriptor {
                        var value: UInt64 = 0
                        _ = read(wakeDescriptor, &value, MemoryLayout<UInt64>.size)
                    } else {
                        // Looked up at each event: an earlier handler in this
                        // batch may have unregistered this descriptor.
                        handlers[descriptor]?(Readiness(rawValue: events[index].events))
                    }
                }
            }
            for action in timers.takeExpired(now: .now) { action() }
            runTurnHooks()
            // Jobs queue more jobs as tasks hop between actors; running those
            // at once, rather than after another epoll_wait, is what keeps a
            // burst of work (10,000 monitors re-evaluated) from costing a
            // system call per hop. The cap lets descriptors in between.
            var ranJobs = false
            var stop = false
            for _ in 0..<Self.jobRoundsPerTurn {
                // Swapped, not copied: both buffers keep their capacity, so
                // a burst of thousands of jobs allocates nothing per round.
                stop = queue.withLock { queue in
                    swap(&queue.jobs, &runningJobs)
                    return queue.stopRequested
                }
                if runningJobs.isEmpty { break }
                ranJobs = true
                for job in runningJobs { runJob(job) }
                runningJobs.removeAll(keepingCapacity: true)
            }
            if ranJobs { runTurnHooks() }
            if stop && !ranJobs { break }
        }
        close(wakeDescriptor)
        close(epollDescriptor)
    }

    /// Moves jobs other threads scheduled for later into `timers`; true if
    /// jobs are waiting to run now, or the loop is to stop once they have,
    /// so the loop must not sleep.
    private func adoptDelayedJobs() -> Bool {
        let (delayed, hasQueuedJobs) = queue.withLock { queue in
            defer { queue.delayedJobs.removeAll() }
            return (queue.delayedJobs, !queue.jobs.isEmpty || queue.stopRequested)
        }
        for (deadline, job) in delayed {
            scheduleJob(job, at: deadline)
        }
        return hasQueuedJobs
    }

    private func runTurnHooks() {
        for hook in afterEachTurn { hook.run() }
    }
}
