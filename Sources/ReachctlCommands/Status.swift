import CommandGrammar
import ReachdKit

extension Reachctl {
    struct Status {
        static let command = Command(
            name: "status",
            abstract: "Print the default route's reachability once.",
            discussion: """
                Reads every property of io.reachd.Reachability1 in one call. Scripts that want a \
                yes or no should use `reachctl wait --timeout 0`.

                \(ExitStatus.readHelp)
                """,
            options: [.flag("json", help: "Print one JSON object instead of text."), ServiceOption.option])

        let json: Bool
        let provider: ServiceOption

        init(_ invocation: Invocation) {
            json = invocation.flag("json")
            provider = ServiceOption(invocation)
        }

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
