import Glibc
import ReachdKit

/// reachd-kit-updates [--host HOST] [--service session|system|in-process] [--fetch N]: a small program that
/// embeds the ReachdKit library, as an app does, and prints one line per update of its manager:
///
///     service=in-process status=2 interface=rv0 reason= level=dns
///
/// then `error=NAME` lines as `lastError` changes. The tests run it where the app would run (in a
/// container with no bus, beside a system instance, in another network namespace) and read its
/// lines. It runs until killed. With `--fetch N` it asks N times with `fetchUpdate()` instead (an
/// engine in-process started and stopped each time), prints `descriptors first=A last=B` (its open
/// descriptors after the first question and after the last) and exits.
@main
enum ReachabilityUpdates {
    static func main() async {
        var arguments = CommandLine.arguments.dropFirst()
        var target = NetworkReachabilityManager.Target.defaultRoute
        var service = ServiceChoice.automatic
        var fetches = 0
        while let argument = arguments.popFirst() {
            switch argument {
            case "--fetch":
                fetches = Int(arguments.popFirst() ?? "") ?? 0
            case "--host":
                target = .init(host: arguments.popFirst() ?? "")
            case "--service":
                guard let choice = ServiceChoice(environmentValue: arguments.popFirst() ?? "") else {
                    emit("usage: reachd-kit-updates [--host HOST] [--service session|system|in-process]")
                    exit(64)
                }
                service = choice
            default:
                emit("usage: reachd-kit-updates [--host HOST] [--service session|system|in-process]")
                exit(64)
            }
        }
        let manager = NetworkReachabilityManager(target, service: service)
        if fetches > 0 {
            var first = 0
            for round in 1...fetches {
                do {
                    _ = try await manager.fetchUpdate()
                } catch {
                    emit("error=\(error.name) \(error.message)")
                    exit(1)
                }
                // The engine stops with its last user, on its loop: give it that moment.
                try? await Task.sleep(for: .milliseconds(20))
                if round == 1 { first = openDescriptors() }
            }
            // The last engine's stop is asynchronous too (its waits end on its loop): a leak is a
            // count that stays above the first one, not one a busy machine has not lowered yet.
            var last = openDescriptors()
            let patience = ContinuousClock.now + .seconds(5)
            while last > first, ContinuousClock.now < patience {
                try? await Task.sleep(for: .milliseconds(50))
                last = openDescriptors()
            }
            emit("descriptors first=\(first) last=\(last)")
            exit(0)
        }
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

    /// How many descriptors this process has open now.
    static func openDescriptors() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return -1 }
        defer { closedir(directory) }
        var count = 0
        while readdir(directory) != nil { count += 1 }
        return count - 2  // . and ..
    }

    /// One line, written at once (a reader waits for each).
    static func emit(_ line: String) {
        var text = line + "\n"
        text.withUTF8 { bytes in _ = write(STDOUT_FILENO, bytes.baseAddress, bytes.count) }
    }
}
