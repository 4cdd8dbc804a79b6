import CorpusSupport

// As the library's README starts it: the zero-address target, two closures, the notifier started,
// and `stopNotifier()` when the app is done.
public enum Case: CorpusCase {
    public static func start(_ report: Report) -> (() -> Void)? {
        let reachability = try! Reachability()
        reachability.whenReachable = { _ in report.push(reachable: true) }
        reachability.whenUnreachable = { _ in report.push(reachable: false) }
        try! reachability.startNotifier()
        return { reachability.stopNotifier() }
    }
}
