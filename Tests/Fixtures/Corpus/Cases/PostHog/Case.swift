import CorpusSupport

// PostHog's SDK subscribes to its Reachability's multicast hooks, holding the tokens, and stops the
// notifier on close.
public enum Case: CorpusCase {
    static var tokens: [RegistrationToken] = []

    public static func start(_ report: Report) -> (() -> Void)? {
        let reachability = try! Reachability()
        tokens = [reachability.onReachable.subscribe { _ in report.push(reachable: true) },
                  reachability.onUnreachable.subscribe { _ in report.push(reachable: false) }]
        try! reachability.startNotifier()
        return { reachability.stopNotifier() }
    }
}
