@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency
import Synchronization

// An event loop can stand in for all of Swift concurrency's executors: made
// with `thread: .caller` on the main thread and installed with
// `EventLoop.installAsMainAndDefaultExecutor`, it runs the main actor, every
// task without an actor, and `Task.sleep`'s timers.
//
// Why: the default executors on Linux are libdispatch's. Once any task has
// run there, libdispatch keeps a worker pool whose monitor re-arms a timer
// every second for the life of the process, so a service that has nothing to
// do still makes about four system calls a second. A service on one loop
// sleeps in epoll_wait until something happens.
//
// These protocols are Swift 6.3's custom-executor SPI (the "custom main and
// global executors" pitch); they are confined to this file.

extension EventLoop {
    /// Makes `loop` Swift's main executor and default executor for the rest of
    /// the process. Call it first thing in a synchronous `main`, before any
    /// task exists, then `loop.run()` on the main thread.
    public static func installAsMainAndDefaultExecutor(_ loop: EventLoop) {
        InstalledExecutors.loop.withLock { $0 = LoopExecutor(loop) }
        _createExecutors(factory: InstalledExecutors.self)
    }
}

/// The loop as the SPI protocols see it. A public type cannot conform to SPI
/// protocols, so this private facade does, and hands out the loop itself as
/// the main actor's serial executor: jobs for the main actor, for tasks and
/// for the loop's own actors all land in the one queue.
private final class LoopExecutor: MainExecutor, TaskExecutor, SchedulingExecutor {
    let loop: EventLoop

    init(_ loop: EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        loop.enqueue(job)
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C) {
        // Every clock the standard library has measures in Duration; an
        // unknown one's delay cannot be converted and runs at once.
        let duration = (delay as? Duration) ?? .zero
        loop.enqueue(UnownedJob(job), at: .now + duration)
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C) {
        enqueue(job, after: clock.now.duration(to: instant), tolerance: tolerance, clock: clock)
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor { loop.asUnownedSerialExecutor() }
    func checkIsolated() { loop.checkIsolated() }
    func isIsolatingCurrentContext() -> Bool? { loop.isIsolatingCurrentContext() }

    func run() throws { loop.run() }
    func stop() { loop.shutdown() }
}

private enum InstalledExecutors: ExecutorFactory {
    static let loop = Mutex<LoopExecutor?>(nil)

    static var mainExecutor: any MainExecutor { installed }
    static var defaultExecutor: any TaskExecutor { installed }

    private static var installed: LoopExecutor {
        guard let executor = loop.withLock({ $0 }) else {
            preconditionFailure("EventLoop.installAsMainAndDefaultExecutor was not called")
        }
        return executor
    }
}
