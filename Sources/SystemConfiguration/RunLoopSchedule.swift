import Foundation
import Synchronization

/// One run loop and mode a target is scheduled on (`SCNetworkReachabilityScheduleWithRunLoop`):
/// work handed to it runs on that run loop's thread, in order, while the loop runs in that mode.
///
/// While scheduled, a timer that never fires keeps the loop running, as the run loop source Apple's
/// target adds does: `RunLoop.main.run()` and `CFRunLoopRun()` return at once on a loop with
/// nothing on it.
final class RunLoopSchedule: @unchecked Sendable {
    // @unchecked: Core Foundation's run loop locks itself, so timers are added to it and
    // invalidated from any thread; `pending` is under its mutex; the rest never changes.
    let runLoop: RunLoop
    let mode: CFRunLoopMode
    private let keepAlive: Timer
    private let pending = Mutex<[@Sendable () -> Void]>([])

    init(runLoop: RunLoop, mode: CFRunLoopMode) {
        self.runLoop = runLoop
        self.mode = mode
        keepAlive = Timer(fire: .distantFuture, interval: 1_000_000_000, repeats: true) { _ in }
        runLoop.add(keepAlive, forMode: mode.runLoopMode)
    }

    func isOn(_ runLoop: RunLoop, mode: CFRunLoopMode) -> Bool {
        self.runLoop === runLoop && self.mode == mode
    }

    /// Runs `work` on the run loop, after all work handed over before it. A timer due at once wakes
    /// the loop (adding one rearms the loop's timer descriptor, which the sleeping loop waits on).
    func perform(_ work: @escaping @Sendable () -> Void) {
        let isFirst = pending.withLock { pending in
            pending.append(work)
            return pending.count == 1
        }
        guard isFirst else { return }
        let wake = Timer(fire: Date(), interval: 0, repeats: false) { [self] _ in runPending() }
        runLoop.add(wake, forMode: mode.runLoopMode)
    }

    /// Lets the loop stop; work already handed over still runs (and finds its target unscheduled).
    /// A timer due at once wakes a sleeping loop, so that `RunLoop.run()` and `CFRunLoopRun()` see
    /// that nothing is left on it and return, as Core Foundation's do when a source is removed.
    func cancel() {
        keepAlive.invalidate()
        runLoop.add(Timer(fire: Date(), interval: 0, repeats: false) { _ in }, forMode: mode.runLoopMode)
    }

    private func runPending() {
        let work = pending.withLock { pending in
            defer { pending = [] }
            return pending
        }
        for item in work { item() }
    }
}
