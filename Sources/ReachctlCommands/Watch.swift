import CommandGrammar
import ReachdKit

extension Reachctl {
    struct Watch {
        static let command = Command(
            name: "watch",
            abstract: "Print the default route's reachability now and one line per change, until interrupted.",
            discussion: """
                Each line is written as soon as the change arrives; it ends with the reason when the \
                path is not satisfied (no-link, no-route, connecting, portal, ...), and a change the \
                line would not show is left out (--json prints every change). When the reachd in use \
                leaves for good, watch moves to the next provider (the system bus's reachd, then \
                reachctl itself), and back when a nearer one appears. With --service session or \
                system, while that reachd cannot be reached the status is Unknown, and standard \
                error says why (no session bus, or reachd not installed for D-Bus activation, and \
                how to fix it), once per reason; reachctl keeps waiting, picks reachd up as soon \
                as it is there, and says so. watch runs until it is interrupted: it never exits \
                because reachd is away. A reachd that refuses its \
                configuration (exit status 64) four times in a row is not started again until it \
                appears on the bus by other means; reachd --check-config names the problem.

                \(ExitStatus.watchHelp)
                """,
            options: [.flag("json", help: "Print one JSON object per line instead of text."), ServiceOption.option])

        let json: Bool
        let provider: ServiceOption

        init(_ invocation: Invocation) {
            json = invocation.flag("json")
            provider = ServiceOption(invocation)
        }

        func run() async throws {
            try provider.apply()
            try await Follower.follow(NetworkReachabilityManager()) { update in
                json ? Output.json(Report(update)) : Output.line(update, host: nil)
            }
        }
    }
}
