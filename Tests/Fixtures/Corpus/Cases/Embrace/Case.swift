import CorpusSupport
import Dispatch

// Embrace's upload layer starts a monitor on its queue and is told only when the connection
// comes back (`onConnectionRegained`, to retry uploads); it never cancels it.
public enum Case: CorpusCase {
    static var held: EmbraceReachabilityMonitor?

    public static func start(_ report: Report) -> (() -> Void)? {
        let monitor = EmbraceReachabilityMonitor(queue: DispatchQueue(label: "embrace.upload"))
        monitor.onConnectionRegained = { report.push("regained") }
        monitor.start()
        held = monitor
        return nil
    }
}
