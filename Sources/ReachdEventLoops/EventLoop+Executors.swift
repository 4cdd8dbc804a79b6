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
// global executors" pitch), underscored and free to change in any release;
// they are confined to this file, and compiled only where they are known to
// work: Swift 6.3.x. Any other compiler, or a build with
// `-Xswiftc -DREACHD_NO_CUSTOM_EXECUTOR`, gets the fallback at the end of the
// file: Swift's own executors, the loop still running its actors and any
// task started with it as the executor preference. To take in a new
// toolchain, widen the range, then check the idle row of Scripts/bench.

#if compiler(>=6.3) && compiler(<6.4) && !REACHD_NO_CUSTOM_EXECUTOR
@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency
import Synchronization

extension EventLoop {
    /// Makes `loop` Swift's main executor and default executor for the rest of
    /// the process, and returns true; false in a build without the SPI (see
    /// above), where nothing changes. Call it first thing in a synchronous
    /// `main`, before any task exists, then `loop.run()` on the main thread.
    ///
    /// ```swift
    /// let loop = try EventLoop(name: "main", thread: .caller)
    /// let isSwiftsExecutor = EventLoop.installAsMainAndDefaultExecutor(loop)
    /// Task(executorPreference: loop) { ... }  // on the loop either way
    /// loop.run()
    /// ```
    public static func installAsMainAndDefaultExecutor(_ loop: EventLoop) -> Bool {
        InstalledExecutors.loop.withLock { $0 = LoopExecutor(loop) }
        _createExecutors(factory: InstalledExecutors.self)
        return true
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

#else

extension EventLoop {
    /// Without the SPI the loop cannot stand in for Swift's executors: false.
    /// Tasks without an actor or executor preference then run on Swift's
    /// global pool (libdispatch's threads), and the main actor on the main
    /// queue, which nothing drains while the main thread runs the loop.
    public static func installAsMainAndDefaultExecutor(_ loop: EventLoop) -> Bool {
        false
    }
}

#endif
