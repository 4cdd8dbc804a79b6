import Dispatch
internal import ReachdKit
import Synchronization

/// `SCNetworkReachabilityGetFlags` on an unscheduled target: one `fetchUpdate()` of its manager,
/// waited for synchronously, as Apple's function is, but never longer than a bound.
enum FlagsQuestion {
    static func ask(_ manager: NetworkReachabilityManager, within bound: DispatchTimeInterval) -> SCNetworkReachabilityFlags? {
        let answer = Answer()
        Task {
            let update = try? await manager.fetchUpdate()
            answer.give(update.map { SCNetworkReachabilityFlags(rawValue: $0.flags.rawValue) })
        }
        guard answer.done.wait(timeout: .now() + bound) == .success else { return nil }
        return answer.flags.withLock { $0 }
    }

    /// Filled once by the question's task; a late answer is dropped with it.
    private final class Answer: Sendable {
        let flags = Mutex<SCNetworkReachabilityFlags?>(nil)
        let done = DispatchSemaphore(value: 0)

        func give(_ value: SCNetworkReachabilityFlags?) {
            flags.withLock { $0 = value }
            done.signal()
        }
    }
}
