import ArgumentParser
import Reachability

extension Reachctl {
    struct Host: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print whether one host (a DNS name or an IP address) is reachable.",
            discussion: """
                Without --watch this is one CheckHost call. With --watch reachd keeps a monitor for \
                the host (ManagerForDomain or ManagerForAddress) and reachctl prints a line per \
                change until interrupted; the monitor is released when reachctl exits.

                \(ExitStatus.help)
                """)

        @Argument(help: "A DNS name, or an IPv4 or IPv6 address.")
        var host: String

        @Flag(help: "Keep printing a line per change until interrupted.")
        var watch = false

        @Flag(help: "Print JSON (one object per line) instead of text.")
        var json = false

        func run() async throws {
            guard watch else {
                do {
                    let (status, flags) = try await NetworkReachabilityManager.checkHost(host)
                    Output.line(json ? Output.json(Report(status: status, flags: flags, host: host))
                                     : Output.line(host: host, status: status, flags: flags))
                } catch {
                    throw ExitStatus.failure(error)
                }
                return
            }
            let manager = NetworkReachabilityManager(.init(host: host))
            for await update in manager.updates {
                // A refusal (invalid host, limit) will not go away by waiting; unavailability may.
                if update.status == .unknown, let error = manager.lastError, !error.isServiceUnavailable {
                    throw ExitStatus.failure(error)
                }
                Output.line(json ? Output.json(Report(update, host: host)) : Output.line(update, host: host))
            }
        }
    }
}
