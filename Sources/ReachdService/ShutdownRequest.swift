import Synchronization

/// A one-way switch that asks a running `ReachabilityDaemon` to finish: release
/// its bus name, close its connections and return.
///
/// Unlike cancelling the daemon's task, a request lets the daemon still talk
/// to the bus while it winds down (releasing the name is a bus call).
public final class ShutdownRequest: Sendable {
    private struct State {
        var requested = false
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// Asks for the shutdown; later calls do nothing.
    public func request() {
        let waiters = state.withLock { state in
            state.requested = true
            defer { state.waiters = [:] }
            return state.waiters.values
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once `request()` has been called, or when the waiting task is
    /// cancelled (the daemon stopping for another reason).
    func wait() async {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    if state.requested || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
