import ArgumentParser
import Reachability

extension Reachctl {
    struct Wait: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Wait until the network (or one host) is reachable, like nm-online.",
            discussion: """
                Exits 0 as soon as the status is Reachable via WWAN or via WiFi, 1 if that does not \
                happen before the timeout. While reachd is not on the bus it keeps waiting for it \
                (until the timeout, then exits 3). Prints nothing on success.

                \(ExitStatus.help)
                """)

        @Option(help: "Give up after this many seconds; 0 checks once without waiting.")
        var timeout: Double = 30

        @Option(help: "Wait for this host (a DNS name or an IP address) instead of the default route.")
        var host: String?

        func validate() throws {
            guard timeout >= 0, timeout.isFinite else { throw ValidationError("--timeout must be 0 or more seconds") }
        }

        func run() async throws {
            let manager = NetworkReachabilityManager(host.map { .init(host: $0) } ?? .defaultRoute)
            if timeout == 0 {
                let update: ReachabilityUpdate
                do {
                    update = try await manager.fetchUpdate()
                } catch {
                    throw ExitStatus.failure(error)
                }
                guard update.isReachable else { throw timedOut(update.status) }
                return
            }
            let outcome = await withTaskGroup(of: Outcome.self) { group in
                group.addTask {
                    for await update in manager.updates {
                        if update.isReachable { return .reachable }
                        // A refusal (invalid host, limit) will not go away by waiting; unavailability may.
                        if update.status == .unknown, let error = manager.lastError, !error.isServiceUnavailable {
                            return .refused(error)
                        }
                    }
                    return .timedOut
                }
                group.addTask { [timeout] in
                    try? await Task.sleep(for: .seconds(timeout))
                    return .timedOut
                }
                let first = await group.next() ?? .timedOut
                group.cancelAll()
                return first
            }
            switch outcome {
            case .reachable: return
            case .timedOut:
                // Unknown because reachd could not be reached is not "the network is down".
                if manager.networkReachabilityStatus == .unknown, let error = manager.lastError, error.isServiceUnavailable {
                    throw ExitStatus.failure(error)
                }
                throw timedOut(manager.networkReachabilityStatus)
            case .refused(let error): throw ExitStatus.failure(error)
            }
        }

        private enum Outcome: Sendable {
            case reachable, timedOut, refused(ReachabilityError)
        }

        private func timedOut(_ status: NetworkReachabilityStatus) -> ExitCode {
            let what = host ?? "the network"
            Output.error("\(what) is not reachable after \(timeout == timeout.rounded() ? String(Int(timeout)) : String(timeout)) s (\(Output.localized(status)))")
            return ExitCode(ExitStatus.timedOut.rawValue)
        }
    }
}
