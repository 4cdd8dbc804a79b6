import CorpusSupport

// Alamofire's shared manager, listening as its documentation shows.
public enum Case: CorpusCase {
    public static func start(_ report: Report) -> (() -> Void)? {
        let manager = NetworkReachabilityManager.default!
        manager.startListening { status in
            if case .reachable = status { report.push(reachable: true) } else { report.push(reachable: false) }
        }
        return { manager.stopListening() }
    }
}
