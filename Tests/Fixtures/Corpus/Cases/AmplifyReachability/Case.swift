import CorpusSupport

// Amplify's API plugin: AmplifyReachability for the zero address, its closures, start and stop.
public enum Case: CorpusCase {
    public static func start(_ report: Report) -> (() -> Void)? {
        let reachability = try! AmplifyReachability()
        reachability.whenReachable = { _ in report.push(reachable: true) }
        reachability.whenUnreachable = { _ in report.push(reachable: false) }
        try! reachability.startNotifier()
        return { reachability.stopNotifier() }
    }
}
