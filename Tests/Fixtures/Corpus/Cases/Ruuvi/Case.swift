import CorpusSupport

// Ruuvi Station's cloud layer starts the static monitor once and reads `active` before syncing.
public enum Case: CorpusCase {
    public static func start(_ report: Report) -> (() -> Void)? {
        Reachability.start()
        report.poll { Reachability.active ? "up" : "down" }
        return nil
    }
}
