import Dispatch
internal import ReachdKit
import Synchronization

/// `SCNetworkReachabilityGetFlags` on an unscheduled target: one question to the manager's
/// provider, waited for synchronously, as Apple's function is, but never longer than a bound.
/// A host is asked with `checkHost`, which answers once the name is resolved (a new host monitor's
/// first value is Unknown until then); the default route with `fetchUpdate()`.
enum FlagsQuestion {
    /// The flags, or the `kSCStatus…` code that says why there are none: `kSCStatusInvalidArgument`
    /// for a host reachd refuses as no host name or address, `kSCStatusReachabilityUnknown` for no
    /// answer (none within the bound, no provider, or Unknown).
    static func ask(_ manager: NetworkReachabilityManager, within bound: DispatchTimeInterval) -> Result<SCNetworkReachabilityFlags, SCStatusCode> {
        let answer = Answer()
        Task {
            do throws(ReachabilityError) {
                let (status, flags): (NetworkReachabilityStatus, ReachabilityFlags)
                if let host = manager.target.host {
                    let checked = try await NetworkReachabilityManager.checkHost(host, service: manager.service)
                    (status, flags) = (checked.status, checked.flags)
                } else {
                    let update = try await manager.fetchUpdate()
                    (status, flags) = (update.status, update.flags)
                }
                answer.give(status == .unknown ? .failure(.reachabilityUnknown) : .success(SCNetworkReachabilityFlags(rawValue: flags.rawValue)))
            } catch {
                answer.give(.failure(error.name == ReachabilityError.invalidHost ? .invalidArgument : .reachabilityUnknown))
            }
        }
        guard answer.done.wait(timeout: .now() + bound) == .success else { return .failure(.reachabilityUnknown) }
        return answer.result.withLock { $0 } ?? .failure(.reachabilityUnknown)
    }

    /// Filled once by the question's task; a late answer is dropped with it.
    private final class Answer: Sendable {
        let result = Mutex<Result<SCNetworkReachabilityFlags, SCStatusCode>?>(nil)
        let done = DispatchSemaphore(value: 0)

        func give(_ value: Result<SCNetworkReachabilityFlags, SCStatusCode>) {
            result.withLock { $0 = value }
            done.signal()
        }
    }
}

/// A `kSCStatus…` code a question can end with.
struct SCStatusCode: Error, Sendable {
    let rawValue: Int

    static let invalidArgument = SCStatusCode(rawValue: kSCStatusInvalidArgument)
    static let reachabilityUnknown = SCStatusCode(rawValue: kSCStatusReachabilityUnknown)
}
