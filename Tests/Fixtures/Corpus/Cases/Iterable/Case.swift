import CorpusSupport

// Iterable's SDK is told only that the status changed, and holds its NWPathMonitor weakly: the
// monitor lives because it was started (as on Apple's systems) until `stop()` cancels it.
public enum Case: CorpusCase {
    public static func start(_ report: Report) -> (() -> Void)? {
        let monitor = NetworkMonitor()
        monitor.statusUpdatedCallback = { report.push("changed") }
        monitor.start()
        return { monitor.stop() }
    }
}
