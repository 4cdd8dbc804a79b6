import CorpusSupport
import DatadogInternal

// Datadog before 2024-06 read SCNetworkReachability flags for the zero address each time it built
// a context (SCNetworkReachabilityReader); there is nothing to stop.
public enum Case: CorpusCase {
    public static func start(_ report: Report) -> (() -> Void)? {
        let reader = SCNetworkReachabilityReader()
        report.poll {
            var info: NetworkConnectionInfo?
            reader.read(to: &info)
            return info?.reachability == .yes ? "up" : "down"
        }
        return nil
    }
}
