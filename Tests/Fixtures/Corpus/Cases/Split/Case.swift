import CorpusSupport

// Split's SDK: the manager for the zero address, a listener, start and stop listening.
public enum Case: CorpusCase {
    public static func start(_ report: Report) -> (() -> Void)? {
        let manager = NetworkReachabilityManager()!
        manager.listener = { status in
            if case .reachable = status { report.push(reachable: true) } else { report.push(reachable: false) }
        }
        _ = manager.startListening()
        return { manager.stopListening() }
    }
}
