import Glibc
import Network
import ReachdKit

/// reachd-bench-path-monitor network|library: one running path monitor, for Scripts/bench's
/// Network rows: Apple's `NWPathMonitor` (the Network product) or the library's own
/// `NetworkPathMonitor`, each with a handler on a queue of its own that prints a line per path
/// (`satisfied`, `unsatisfied`, `requiresConnection`). One binary for both, so the figures differ
/// only by the front end. Runs until killed.
@main
enum PathMonitorBench {
    static func main() {
        let arguments = CommandLine.arguments.dropFirst()
        let queue = DispatchQueue(label: "path updates")
        switch arguments.first {
        case "network" where arguments.count == 1:
            let monitor = NWPathMonitor()
            monitor.pathUpdateHandler = { path in emit("\(path.status)") }
            monitor.start(queue: queue)
            withExtendedLifetime(monitor) { dispatchMain() }
        case "library" where arguments.count == 1:
            let monitor = NetworkPathMonitor()
            monitor.pathUpdateHandler = { path in emit("\(path.status)") }
            monitor.start(queue: queue)
            withExtendedLifetime(monitor) { dispatchMain() }
        default:
            emit("usage: reachd-bench-path-monitor network|library")
            exit(64)
        }
    }

    /// One line, written at once (the bench waits for the first).
    static func emit(_ line: String) {
        var text = line + "\n"
        text.withUTF8 { bytes in _ = write(STDOUT_FILENO, bytes.baseAddress, bytes.count) }
    }
}
