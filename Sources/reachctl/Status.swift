import ArgumentParser
import ReachdKit

extension Reachctl {
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the default route's reachability once.",
            discussion: """
                Reads every property of io.reachd.Reachability1 in one call. Scripts that want a \
                yes or no should use `reachctl wait --timeout 0`.

                \(ExitStatus.readHelp)
                """)

        @Flag(help: "Print one JSON object instead of text.")
        var json = false

        @OptionGroup var provider: ServiceOption

        func run() async throws {
            try provider.apply()
            let update = try await Self.fetchDefaultRoute()
            PassedOver.say(update)
            Output.line(json ? Output.json(Report(update)) : Output.block(update))
        }

        /// Every property of the main object in one call; a failure exits 3 or 4 with the reason.
        static func fetchDefaultRoute() async throws -> ReachabilityUpdate {
            do {
                return try await NetworkReachabilityManager().fetchUpdate()
            } catch {
                throw ExitStatus.failure(error)
            }
        }
    }
}
