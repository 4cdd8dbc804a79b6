import Glibc
import Reachability

/// reachability-updates [--host HOST] [--service session|system|in-process]: a small program that
/// embeds the Reachability library, as an app does, and prints one line per update of its manager:
///
///     service=in-process status=2 interface=rv0 reason= level=dns
///
/// then `error=NAME` lines as `lastError` changes. The tests run it where the app would run (in a
/// container with no bus, beside a system instance, in another network namespace) and read its
/// lines. It runs until killed.
@main
enum ReachabilityUpdates {
    static func main() async {
        var arguments = CommandLine.arguments.dropFirst()
        var target = NetworkReachabilityManager.Target.defaultRoute
        var service = ServiceChoice.automatic
        while let argument = arguments.popFirst() {
            switch argument {
            case "--host":
                target = .init(host: arguments.popFirst() ?? "")
            case "--service":
                guard let choice = ServiceChoice(environmentValue: arguments.popFirst() ?? "") else {
                    emit("usage: reachability-updates [--host HOST] [--service session|system|in-process]")
                    exit(64)
                }
                service = choice
            default:
                emit("usage: reachability-updates [--host HOST] [--service session|system|in-process]")
                exit(64)
            }
        }
        let manager = NetworkReachabilityManager(target, service: service)
        Task {
            for await error in manager.lastErrorUpdates {
                emit("error=\(error?.name ?? "")")
            }
        }
        for await update in manager.updates {
            emit("service=\(update.service?.rawValue ?? "") status=\(update.status.rawValue) interface=\(update.interface)"
                 + " reason=\(update.unsatisfiedReason.rawValue) level=\(update.level.rawValue)")
        }
    }

    /// One line, written at once (a reader waits for each).
    static func emit(_ line: String) {
        var text = line + "\n"
        text.withUTF8 { bytes in _ = write(STDOUT_FILENO, bytes.baseAddress, bytes.count) }
    }
}
