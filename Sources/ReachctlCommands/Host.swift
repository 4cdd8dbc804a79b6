import CommandGrammar
import ReachdKit

extension Reachctl {
    struct Host {
        static let command = Command(
            name: "host",
            abstract: "Print whether one host (a DNS name or an IP address) is reachable.",
            discussion: """
                Without --watch this is one CheckHost call, and the exit status says whether the \
                host is reachable, like `reachctl wait --host NAME --timeout 0`. With --watch \
                reachd keeps a monitor for the host (ManagerForDomain or ManagerForAddress) and \
                reachctl prints a line per change until interrupted; the monitor is released when \
                reachctl exits. While a provider chosen with --service cannot be reached, --watch \
                says why on standard error and waits for it.

                \(ExitStatus.hostHelp)
                """,
            arguments: [Positional("host", help: "A DNS name, or an IPv4 or IPv6 address.")],
            options: [.flag("watch", help: "Keep printing a line per change until interrupted."),
                      .flag("json", help: "Print JSON (one object per line) instead of text."), ServiceOption.option])

        let host: String
        let watch: Bool
        let json: Bool
        let provider: ServiceOption

        init(_ invocation: Invocation) {
            host = invocation.arguments[0]
            watch = invocation.flag("watch")
            json = invocation.flag("json")
            provider = ServiceOption(invocation)
        }

        func run() async throws {
            try provider.apply()
            guard watch else {
                let answer: ReachabilityUpdate
                do {
                    answer = try await NetworkReachabilityManager.checkHostUpdate(host)
                } catch {
                    throw ExitStatus.failure(error)
                }
                PassedOver.say(answer)
                let (status, flags, service) = (answer.status, answer.flags, answer.service ?? .inProcess)
                var report = Report(status: status, flags: flags, host: host)
                report.service = service.rawValue
                Output.line(json ? Output.json(report) : Output.line(host: host, status: status, flags: flags, service: service))
                if !status.isReachable { throw ExitCode(ExitStatus.notReachable.rawValue) }
                return
            }
            try await Follower.follow(NetworkReachabilityManager(.init(host: host))) { update in
                json ? Output.json(Report(update, host: host)) : Output.line(update, host: host)
            }
        }
    }
}
