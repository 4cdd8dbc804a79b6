import CorpusSupport
import Dispatch
import Network

// Amplify's CloudWatch logging, the same shape: `isOnline` asked before each flush.
public enum Case: CorpusCase {
    public static func start(_ report: Report) -> (() -> Void)? {
        let monitor: LoggingNetworkMonitor = NWPathMonitor()
        monitor.startMonitoring(using: DispatchQueue(label: "logging"))
        report.poll { monitor.isOnline ? "up" : "down" }
        return { monitor.stopMonitoring() }
    }
}
