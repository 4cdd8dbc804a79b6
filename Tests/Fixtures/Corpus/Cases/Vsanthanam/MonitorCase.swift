import CorpusSupport
import Dispatch

// NetworkReachability's NetworkMonitor with an update handler; the app stops it by letting it go
// (its deinit cancels the path monitor).
public enum MonitorCase: CorpusCase {
    static var held: NetworkMonitor?

    public static func start(_ report: Report) -> (() -> Void)? {
        held = NetworkMonitor(updateQueue: DispatchQueue(label: "app")) { _, path in
            report.push(reachable: path.status == .satisfied, interface: path.availableInterfaces.first?.name)
        }
        return { held = nil }
    }
}
