import Dispatch
internal import ReachdKit
import Synchronization

/// `SCNetworkReachabilityGetFlags` on an unscheduled target: one question to the manager's
/// provider, waited for synchronously, as Apple's function is, but never longer than a bound.
/// A host is asked with `checkHost`, which answers once the name is resolved (a new host monitor's
/// first value is Unknown until then); the default route with `fetchUpdate()`. A name whose lookup
/// failed a moment ago gives that failure again unless a fresh answer comes within
/// `freshAnswerGrace` (`RecentLookupFailures` says why).
enum FlagsQuestion {
    /// The flags, or the `kSCStatus…` code that says why there are none: `kSCStatusInvalidArgument`
    /// for a host reachd refuses as no host name or address, `kSCStatusReachabilityUnknown` for no
    /// answer (none within the bound, no provider, or Unknown).
    static func ask(_ manager: NetworkReachabilityManager, within bound: DispatchTimeInterval,
                    failures: RecentLookupFailures = .shared) -> Result<SCNetworkReachabilityFlags, SCStatusCode> {
        let answer = Answer(host: manager.target.host, failures: failures)
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
        // A name that failed a moment ago: a fresh answer still wins if it comes at once (a mended
        // resolver, a new route); else the failure stands, as a negative cache answers.
        let failedRecently = manager.target.host.map(failures.recentFailure(of:)) ?? false
        guard answer.done.wait(timeout: .now() + (failedRecently ? Self.freshAnswerGrace : bound)) == .success else {
            return failedRecently ? .success([]) : .failure(.reachabilityUnknown)
        }
        return answer.result.withLock { $0 } ?? .failure(.reachabilityUnknown)
    }

    /// How long a name that failed a moment ago waits for a fresh answer before the failure stands.
    static let freshAnswerGrace: DispatchTimeInterval = .milliseconds(100)

    /// Filled once by the question's task. A late answer reaches no caller, but a host's answer,
    /// early or late, tells `failures` whether its lookup failed.
    private final class Answer: Sendable {
        let result = Mutex<Result<SCNetworkReachabilityFlags, SCStatusCode>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let host: String?
        let failures: RecentLookupFailures

        init(host: String?, failures: RecentLookupFailures) {
            self.host = host
            self.failures = failures
        }

        func give(_ value: Result<SCNetworkReachabilityFlags, SCStatusCode>) {
            if let host { failures.heard(value, for: host) }
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
