import CommandGrammar
import ReachdKit

extension Reachctl {
    struct Wait {
        static let command = Command(
            name: "wait",
            abstract: "Wait until the network reaches a level (or one host is reachable), like nm-online.",
            discussion: """
                Levels, each implying the ones before: link (a link that can carry an Internet path \
                has carrier), routable (Status is reachable: no portal, no connection required), dns \
                (routable, and a configured DNS server has a path), online (dns, and a connectivity \
                check is live and says full: NetworkManager's, ConnMan's, or where neither checks, \
                reachd's own, which [connectivity] uri=http://... in reachd.conf turns on; \
                ~/.config/reachd/reachd.conf for your reachd, /etc/reachd/reachd.conf for a system one; \
                in-process, REACHD_CONNECTIVITY_URI in the environment). For online it waits \
                while no source has answered, while a check has not said full yet, and while only \
                the kernel answers beside a system bus (a network daemon may yet start: a boot); it \
                exits 5 only where a network daemon that does not check is the source, or there is \
                no system bus at all, and no check URI is set.

                Exits 0 as soon as the condition holds (at once if it already does), 1 if it does not \
                before the timeout. --timeout 0 checks once without waiting (as nm-online; unlike \
                systemd-networkd-wait-online, where 0 means no limit); inf waits without a limit. \
                Only reachd's signals (in-process: the kernel's and NetworkManager's events) drive \
                the wait: reachctl never polls. While a provider chosen with --service is not \
                there it keeps waiting for it; if it is still not there at the timeout, exit 3.

                \(ExitStatus.waitHelp)
                """,
            options: [
                .value("level", help: "link, routable, dns or online (also spelled internet, full).", default: "routable",
                       completion: .values(WaitCondition.Level.names)),
                .flag("ipv4", short: "4", help: "Also require an IPv4 path."),
                .flag("ipv6", short: "6", help: "Also require an IPv6 path."),
                // Any word: `-1` is a value here (out of range, and said so), not an option.
                .value("timeout", help: "Give up after this many seconds (decimals allowed, at most 31536000: a year); 0 checks once; inf waits without a limit.",
                       default: "30", takesAnyWord: true),
                .value("host", help: "Wait for this host (a DNS name or an IP address) instead of a level; NAME:PORT (or [IPV6]:PORT) also waits until a TCP connection to that port succeeds (repeatable).",
                       repeating: true),
                .value("interface", short: "i",
                       help: "Wait for this interface instead of the global level: IF or IF:link|routable|online (repeatable; an absent interface is waited for).",
                       completion: .shellCommand("ls /sys/class/net"), repeating: true),
                .value("ignore", help: "Links whose names match this glob never count (repeatable).", repeating: true),
                .flag("any", help: "With several -i or --host conditions, one suffices."),
                .flag("exit-early", short: "x", help: "Exit 1 at once when the condition is not met and nothing is being connected."),
                .value("stable", help: "The condition must hold this many seconds (decimals allowed, at most a year) before reachctl exits 0.",
                       default: "0", takesAnyWord: true),
                .flag("quiet", short: "q", help: "Print nothing."),
                .flag("json", help: "Print the final evaluation as one JSON object on standard output."),
                ServiceOption.option,
            ])

        let level: WaitCondition.Level
        let ipv4: Bool
        let ipv6: Bool
        let timeout: Seconds
        let host: [String]
        let interface: [String]
        let ignore: [String]
        let any: Bool
        let exitEarly: Bool
        let stable: Seconds
        let quiet: Bool
        let json: Bool
        let provider: ServiceOption

        /// The options as given, checked together: a value out of range, a contradiction or a
        /// condition that could never be met is a usage error (64) before anything is asked.
        init(_ invocation: Invocation) throws(UsageError) {
            func refuse(_ message: String) -> UsageError { UsageError(message, for: invocation) }
            let levelName = invocation.value("level") ?? "routable"
            guard let level = WaitCondition.Level(levelName) else {
                throw refuse("unknown --level '\(levelName)' (link, routable, dns, online)")
            }
            self.level = level
            ipv4 = invocation.flag("ipv4")
            ipv6 = invocation.flag("ipv6")
            host = invocation.values("host")
            interface = invocation.values("interface")
            ignore = invocation.values("ignore")
            any = invocation.flag("any")
            exitEarly = invocation.flag("exit-early")
            quiet = invocation.flag("quiet")
            json = invocation.flag("json")
            provider = ServiceOption(invocation)
            let timeoutText = invocation.value("timeout") ?? "30"
            let timeout = Seconds(argument: timeoutText)
            guard let timeout, timeout.isUnlimited || timeout.duration != nil else {
                throw refuse("--timeout must be \(Seconds.rangeText), or inf; got \(timeoutText)")
            }
            self.timeout = timeout
            let stableText = invocation.value("stable") ?? "0"
            guard let stable = Seconds(argument: stableText), let stableFor = stable.duration else {
                throw refuse("--stable must be \(Seconds.rangeText); got \(stableText)")
            }
            self.stable = stable
            // The condition must hold --stable seconds before the timeout: a longer hold can never be met.
            if let limit = timeout.duration, stableFor > limit {
                throw refuse("--stable \(stable.text) is longer than --timeout \(timeout.text): "
                             + "the condition could never hold that long before the timeout")
            }
            if (ipv4 || ipv6) && level == .link {
                throw refuse("-4 and -6 ask for a path, which --level link does not look at")
            }
            if !host.isEmpty && (ipv4 || ipv6) { throw refuse("-4 and -6 do not apply to --host") }
            for item in host where TCPHandshake.split(item) == nil {
                throw refuse("--host takes NAME, NAME:PORT or [IPV6]:PORT with a port of 1-65535, not '\(item)'")
            }
            if any && interface.count + host.count < 2 { throw refuse("--any needs at least two -i or --host conditions") }
            let interfaceLevel = Self.interfaceDefaultLevel(level)
            for item in interface {
                guard let condition = InterfaceCondition(item, defaultLevel: interfaceLevel) else {
                    throw refuse("-i takes IF or IF:link|routable|online, not '\(item)'")
                }
                if matchesAny(condition.name, ignore) {
                    throw refuse("-i \(condition.name) matches an --ignore, so it could never be met")
                }
            }
        }

        /// `-i IF` without `:LEVEL` takes `--level` when it names one an interface can have
        /// (`dns` is the network's, not an interface's: routable).
        private static func interfaceDefaultLevel(_ level: WaitCondition.Level) -> InterfaceCondition.Level {
            switch level {
            case .link: .link
            case .online: .online
            default: .routable
            }
        }

        func run() async throws {
            try provider.apply()
            let condition = WaitCondition(
                level: level, ipv4: ipv4, ipv6: ipv6,
                interfaces: interface.compactMap { InterfaceCondition($0, defaultLevel: Self.interfaceDefaultLevel(level)) },
                ignore: ignore, any: any)
            let hosts = host.compactMap(TCPHandshake.split).map { Waiter.Host(name: $0.host, port: $0.port) }
            // init took both: a duration within the range, or an unlimited --timeout.
            let waiter = Waiter(condition: condition, hosts: hosts, timeout: timeout.duration,
                                stable: stable.duration ?? .zero, exitEarly: exitEarly, quiet: quiet)
            let outcome = await waiter.wait()
            if json { Output.line(Output.json(outcome.report)) }
            switch outcome.ending {
            case .satisfied:
                return
            case .notSatisfied(let text):
                if !quiet { Output.error(text) }
                throw ExitCode(ExitStatus.notReachable.rawValue)
            case .failed(let error):
                throw ExitStatus.failure(error)
            case .cannotEvaluate(let text):
                if !quiet { Output.error(text) }
                throw ExitCode(ExitStatus.cannotEvaluate.rawValue)
            }
        }
    }
}
