import CorpusSupport

// NetworkReachability's `for await path in NetworkMonitor.networkPathUpdates`, in a task the app
// cancels. The stream's monitor is never cancelled and nobody holds it: it keeps running, as on
// Apple's systems, and the loop ends.
public enum AsyncCase: CorpusCase {
    public static func start(_ report: Report) -> (() -> Void)? {
        let task = Task {
            for await path in NetworkMonitor.networkPathUpdates {
                report.push(reachable: path.status == .satisfied, interface: path.availableInterfaces.first?.name)
            }
        }
        return { task.cancel() }
    }
}
