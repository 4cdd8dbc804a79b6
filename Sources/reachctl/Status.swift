import ArgumentParser
import Reachability

extension Reachctl {
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the default route's reachability once.",
            discussion: """
                Reads every property of io.reachd.Reachability1 in one call. Scripts that want a \
                yes or no should use `reachctl wait --timeout 0`.

                \(ExitStatus.help)
                """)

        @Flag(help: "Print one JSON object instead of text.")
        var json = false

        func run() async throws {
            let update: ReachabilityUpdate
            do {
                update = try await NetworkReachabilityManager().fetchUpdate()
            } catch {
                throw ExitStatus.failure(error)
            }
            Output.line(json ? Output.json(Report(update)) : Output.block(update))
        }
    }
}
