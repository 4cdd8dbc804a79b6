import CorpusSupport

// LaunchDarkly's SDK asks `isConnectedToNetwork()` (a zero-address target, its flags read once)
// before it connects; it keeps no target and has nothing to stop.
public enum Case: CorpusCase {
    public static func start(_ report: Report) -> (() -> Void)? {
        report.poll { NetworkReporter.isConnectedToNetwork() ? "up" : "down" }
        return nil
    }
}
