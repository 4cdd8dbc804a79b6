import CorpusSupport
internal import Network

// automerge-repo-swift loops over `monitor.paths()` in a task; ending the task cancels the monitor
// (the stream's onTermination).
public enum Case: CorpusCase {
    public static func start(_ report: Report) -> (() -> Void)? {
        let monitor = NWPathMonitor()
        let task = Task {
            for await path in monitor.paths() {
                report.push(reachable: path.status == .satisfied, interface: path.availableInterfaces.first?.name)
            }
        }
        return { task.cancel() }
    }
}
