import CorpusSupport
import Dispatch
import Network

// Amplify's Pinpoint analytics holds an NWPathMonitor as its NetworkMonitor and asks `isOnline`
// before each submission.
public enum Case: CorpusCase {
    public static func start(_ report: Report) -> (() -> Void)? {
        let monitor: NetworkMonitor = NWPathMonitor()
        monitor.startMonitoring(using: DispatchQueue(label: "pinpoint"))
        report.poll { monitor.isOnline ? "up" : "down" }
        return { monitor.stopMonitoring() }
    }
}
