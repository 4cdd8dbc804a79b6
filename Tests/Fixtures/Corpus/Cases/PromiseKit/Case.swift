import CorpusSupport
import SystemConfiguration

// PromiseKit's `SCNetworkReachability.promise()`: an app waits for the network before its first
// request. The helper that schedules the target is held by nobody but the pending promise; the
// promise is fulfilled once, at the first reachable callback, and unschedules its target.
public enum Case: CorpusCase {
    public static func start(_ report: Report) -> (() -> Void)? {
        SCNetworkReachability.promise().done { report.push("regained") }
        return nil
    }
}
