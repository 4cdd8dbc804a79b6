import CorpusSupport
import Dispatch
import Network

// SundialKit's network observer drives any PathMonitor; NWPathMonitor is the one it ships.
public enum Case: CorpusCase {
    public static func start(_ report: Report) -> (() -> Void)? {
        let monitor = NWPathMonitor()
        observe(monitor, report)
        return { monitor.cancel() }
    }

    static func observe<Monitor: PathMonitor>(_ monitor: Monitor, _ report: Report) where Monitor.PathType == NWPath {
        monitor.onPathUpdate { path in
            report.push(reachable: path.status == .satisfied, interface: path.availableInterfaces.first?.name)
        }
        monitor.start(queue: DispatchQueue(label: "sundial"))
    }
}
