import ArgumentParser
import Reachability

extension Reachctl {
    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the default route's reachability now and one line per change, until interrupted.",
            discussion: """
                Each line is written as soon as the change arrives. While reachd is not on the bus \
                the status is Unknown; reachctl picks the service up again when it returns.

                \(ExitStatus.help)
                """)

        @Flag(help: "Print one JSON object per line instead of text.")
        var json = false

        func run() async throws {
            for await update in NetworkReachabilityManager().updates {
                Output.line(json ? Output.json(Report(update)) : Output.line(update, host: nil))
            }
        }
    }
}
