import CShims
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
/// `Connection` keeps its libdbus connection confined to one thread.
///
/// ```swift
/// let loop = try EventLoop(name: "session-bus")
/// ```
public final class EventLoop: SerialExecutor, @unchecked Sendable {
    // Why @unchecked Sendable is safe: `queue` is behind a Mutex and
    // `loopThread` is atomic; every other stored property (`handlers`,
    // `timers`, `afterEachTurn`) is read and written only on the loop
    // thread, which `preconditionOnLoop()` asserts at each entry point.

    private struct Queue {
        var jobs: [UnownedJob] = []
        var stopRequested = false
    }

    /// What the loop calls when a registered descriptor is ready.
    public typealias ReadinessHandler = (_ events: UInt32) -> Void

    private let name: String
    private let epollDescriptor: Int32
    private let wakeDescriptor: Int32
    private let queue = Mutex(Queue())
    private let loopThread = Atomic<UInt>(0)
    private var handlers: [Int32: ReadinessHandler] = [:]
    private var timers = TimerQueue()
    private var afterEachTurn: [(id: Int, run: () -> Void)] = []
    private var nextHookID = 0

    public init(name: String) throws(SystemCallError) {
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
        _ = epoll_ctl(epollDescriptor, EPOLL_CTL_ADD, wakeDescriptor, &event)
        startThread()
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
        // job of a batch needs to wake it.
        if wasIdle { wake() }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
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

    /// The `events` value for "tell me when it is readable" (EPOLLIN).
    public static let readable: UInt32 = EPOLLIN.rawValue

    /// Watches `descriptor` for `events` (EPOLLIN, EPOLLOUT); replaces an earlier registration.
    public func watch(_ descriptor: Int32, events: UInt32, handler: @escaping ReadinessHandler) {
        preconditionOnLoop()
        var event = epoll_event()
        event.events = events
        event.data.fd = descriptor
        let operation = handlers[descriptor] == nil ? EPOLL_CTL_ADD : EPOLL_CTL_MOD
        handlers[descriptor] = handler
        _ = epoll_ctl(epollDescriptor, operation, descriptor, &event)
    }

    public func unwatch(_ descriptor: Int32) {
        preconditionOnLoop()
        guard handlers.removeValue(forKey: descriptor) != nil else { return }
        _ = epoll_ctl(epollDescriptor, EPOLL_CTL_DEL, descriptor, nil)
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
    func addTurnHook(_ hook: @escaping () -> Void) -> Int {
        preconditionOnLoop()
        nextHookID += 1
        afterEachTurn.append((nextHookID, hook))
        return nextHookID
    }

    func removeTurnHook(_ id: Int) {
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

    private func startThread() {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { context in
            let loop = Unmanaged<EventLoop>.fromOpaque(context!).takeRetainedValue()
            loop.run()
            return nil
        }, context)
        precondition(result == 0, "pthread_create failed for event loop '\(name)': \(result)")
        pthread_detach(thread)
    }

    private func run() {
        loopThread.store(UInt(pthread_self()), ordering: .releasing)
        let capacity: Int32 = 64
        var events = [epoll_event](repeating: epoll_event(), count: Int(capacity))
        while true {
            let timeout = timers.millisecondsUntilNextDeadline(now: .now)
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
                        handlers[descriptor]?(events[index].events)
                    }
                }
            }
            for action in timers.takeExpired(now: .now) { action() }
            runTurnHooks()
            let (jobs, stop) = queue.withLock { queue in
                defer { queue.jobs.removeAll(keepingCapacity: true) }
                return (queue.jobs, queue.stopRequested)
            }
            for job in jobs {
                job.runSynchronously(on: asUnownedSerialExecutor())
            }
            if !jobs.isEmpty { runTurnHooks() }
            if stop && jobs.isEmpty { break }
        }
        close(wakeDescriptor)
        close(epollDescriptor)
    }

    private func runTurnHooks() {
        for hook in afterEachTurn { hook.run() }
    }
}
