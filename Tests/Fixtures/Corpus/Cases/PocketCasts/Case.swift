import CorpusSupport

// Pocket Casts keeps a Reachability and asks its `connection` before each download; it has no
// notifier to stop.
public enum Case: CorpusCase {
    public static func start(_ report: Report) -> (() -> Void)? {
        let reachability = Reachability()!
        report.poll { reachability.connection == .none ? "down" : "up" }
        return nil
    }
}
