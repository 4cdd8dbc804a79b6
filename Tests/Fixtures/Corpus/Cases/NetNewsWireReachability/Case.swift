import CorpusSupport

// NetNewsWire (before 2025-11) kept one Reachability for the zero address and read its closures.
public enum Case: CorpusCase {
    public static func start(_ report: Report) -> (() -> Void)? {
        let reachability = try! Reachability()
        reachability.whenReachable = { _ in report.push(reachable: true) }
        reachability.whenUnreachable = { _ in report.push(reachable: false) }
        try! reachability.startNotifier()
        return { reachability.stopNotifier() }
    }
}
