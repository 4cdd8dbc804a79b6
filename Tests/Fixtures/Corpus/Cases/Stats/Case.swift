import CorpusSupport

// Stats (exelban) starts its Reachability at once and hears every callback through two closures.
public enum Case: CorpusCase {
    public static func start(_ report: Report) -> (() -> Void)? {
        let reachability = Reachability(start: false)
        reachability.reachable = { report.push(reachable: true) }
        reachability.unreachable = { report.push(reachable: false) }
        reachability.start()
        return { reachability.stop() }
    }
}
