import Glibc
import Network
import ReachdEventLoops
import ReachdKit

/// reachd-bench-path-monitor network|library [--on-event-loop]: one running path monitor, for
/// Scripts/bench's Network rows: Apple's `NWPathMonitor` (the Network product) or the library's
/// own `NetworkPathMonitor`, each with a handler on a queue of its own that prints a line per
/// path (`satisfied`, `unsatisfied`, `requiresConnection`). One binary for both, so the figures
/// differ only by the front end. Runs until killed.
///
/// By default on Swift's own executors, as an app written for Apple's platforms runs: there,
/// once any task has slept (`Task.sleep`), libdispatch re-arms a timer every second for the life
/// of the process (ReachctlProgram.swift). `--on-event-loop` makes reachd's event loop Swift's main and
/// default executor on the main thread, as reachctl does, so that what remains idle is the
/// monitor's own.
@main
enum PathMonitorBench {
    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        let onEventLoop = arguments.last == "--on-event-loop"
        if onEventLoop { arguments.removeLast() }
        // Before any task: Swift's executors are chosen once, at the first task.
        var loop: EventLoop?
        if onEventLoop {
            do {
                loop = try EventLoop(name: "bench", thread: .caller)
            } catch {
                emit("cannot start an event loop: \(error)")
                exit(1)
            }
            _ = EventLoop.installAsMainAndDefaultExecutor(loop!)
        }
        let queue = DispatchQueue(label: "path updates")
        let monitor: AnyObject
        switch arguments {
        case ["network"]:
            let network = NWPathMonitor()
            network.pathUpdateHandler = { path in emit("\(path.status)") }
            network.start(queue: queue)
            monitor = network
        case ["library"]:
            let library = NetworkPathMonitor()
            library.pathUpdateHandler = { path in emit("\(path.status)") }
            library.start(queue: queue)
            monitor = library
        default:
            emit("usage: reachd-bench-path-monitor network|library [--on-event-loop]")
            exit(64)
        }
        withExtendedLifetime(monitor) {
            if let loop { loop.run() } else { dispatchMain() }
        }
    }

    /// One line, written at once (the bench waits for the first).
    static func emit(_ line: String) {
        var text = line + "\n"
        text.withUTF8 { bytes in _ = write(STDOUT_FILENO, bytes.baseAddress, bytes.count) }
    }
}
