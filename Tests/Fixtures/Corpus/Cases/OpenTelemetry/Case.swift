import CorpusSupport

// OpenTelemetry's NetworkStatus names only Wi-Fi and cellular connections: on a wired link it says
// `unavailable` whatever the path, as on a Mac with Ethernet. It asks `getConnection()` per span.
public enum Case: CorpusCase {
    static var held: NetworkMonitor?

    public static func start(_ report: Report) -> (() -> Void)? {
        let monitor = try! NetworkMonitor()
        held = monitor
        report.poll { "\(monitor.getConnection())" }
        return nil
    }
}
