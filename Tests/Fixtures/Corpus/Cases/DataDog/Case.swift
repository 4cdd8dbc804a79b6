import CorpusSupport
import DatadogInternal

// Datadog's core publishes each path as NetworkConnectionInfo into its context, and cancels the
// publisher when the core stops. It names interface types, not interfaces.
public enum Case: CorpusCase {
    public static func start(_ report: Report) -> (() -> Void)? {
        let publisher = NWPathMonitorPublisher()
        publisher.publish { info in
            report.push(info?.reachability == .yes ? "up" : "down")
        }
        return { publisher.cancel() }
    }
}
