import CorpusSupport

// Optimizely's SDK starts its monitor on the first request and asks `isConnected` before each one.
public enum Case: CorpusCase {
    public static func start(_ report: Report) -> (() -> Void)? {
        let reachability = NetworkReachability()
        reachability.startMonitorIfNeeded()
        report.poll { reachability.isConnected ? "up" : "down" }
        return { reachability.stop() }
    }
}
