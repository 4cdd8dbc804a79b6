import CorpusSupport

// RxSwift's example app: one Reachability, its closures, the notifier.
public enum Case: CorpusCase {
    public static func start(_ report: Report) -> (() -> Void)? {
        let reachability = Reachability()!
        reachability.whenReachable = { _ in report.push(reachable: true) }
        reachability.whenUnreachable = { _ in report.push(reachable: false) }
        try! reachability.startNotifier()
        return { reachability.stopNotifier() }
    }
}
