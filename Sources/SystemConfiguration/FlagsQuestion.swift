import Dispatch
internal import ReachdKit
import Synchronization

/// `SCNetworkReachabilityGetFlags` on an unscheduled target: one question to the manager's
/// provider, waited for synchronously, as Apple's function is, but never longer than a bound.
/// A host is asked with `checkHost`, which answers once the name is resolved (a new host monitor's
/// first value is Unknown until then); the default route with `fetchUpdate()`.
enum FlagsQuestion {
    static func ask(_ manager: NetworkReachabilityManager, within bound: DispatchTimeInterval) -> SCNetworkReachabilityFlags? {
        let answer = Answer()
        Task {
            let flags: ReachabilityFlags?
            if let host = manager.target.host {
                let checked = try? await NetworkReachabilityManager.checkHost(host, service: manager.service)
                flags = checked.flatMap { $0.status == .unknown ? nil : $0.flags }
            } else {
                let update = try? await manager.fetchUpdate()
                flags = update.flatMap { $0.status == .unknown ? nil : $0.flags }
            }
            answer.give(flags.map { SCNetworkReachabilityFlags(rawValue: $0.rawValue) })
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
