import ArgumentParser
import ReachdKit

extension Reachctl {
    struct Wait: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
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
                """)

        @Option(help: "link, routable, dns or online (also spelled internet, full).",
                completion: .list(WaitCondition.Level.names))
        var level: String = "routable"

        @Flag(name: [.customShort("4"), .customLong("ipv4")], help: "Also require an IPv4 path.")
        var ipv4 = false

        @Flag(name: [.customShort("6"), .customLong("ipv6")], help: "Also require an IPv6 path.")
        var ipv6 = false

        // Unconditional: `-1` is a value here (out of range, and said so), not an option.
        @Option(parsing: .unconditional,
                help: "Give up after this many seconds (decimals allowed, at most 31536000: a year); 0 checks once; inf waits without a limit.")
        var timeout = Seconds(30)

        @Option(help: "Wait for this host (a DNS name or an IP address) instead of a level; NAME:PORT (or [IPV6]:PORT) also waits until a TCP connection to that port succeeds (repeatable).")
        var host: [String] = []

        @Option(name: [.customShort("i"), .customLong("interface")],
                help: "Wait for this interface instead of the global level: IF or IF:link|routable|online (repeatable; an absent interface is waited for).",
                completion: .shellCommand("ls /sys/class/net"))
        var interface: [String] = []

        @Option(help: "Links whose names match this glob never count (repeatable).")
        var ignore: [String] = []

        @Flag(help: "With several -i or --host conditions, one suffices.")
        var any = false

        @Flag(name: [.customShort("x"), .customLong("exit-early")],
              help: "Exit 1 at once when the condition is not met and nothing is being connected.")
        var exitEarly = false

        @Option(parsing: .unconditional,
                help: "The condition must hold this many seconds (decimals allowed, at most a year) before reachctl exits 0.")
        var stable = Seconds(0)

        @Flag(name: [.customShort("q"), .customLong("quiet")], help: "Print nothing.")
        var quiet = false

        @Flag(help: "Print the final evaluation as one JSON object on standard output.")
        var json = false

        @OptionGroup var provider: ServiceOption

        func validate() throws {
            guard WaitCondition.Level(level) != nil else {
                throw ValidationError("unknown --level '\(level)' (link, routable, dns, online)")
            }
            guard timeout.isUnlimited || timeout.duration != nil else {
                throw ValidationError("--timeout must be \(Seconds.rangeText), or inf; got \(timeout.text)")
            }
            guard let stableFor = stable.duration else {
                throw ValidationError("--stable must be \(Seconds.rangeText); got \(stable.text)")
            }
            // The condition must hold --stable seconds before the timeout: a longer hold can never be met.
            if let limit = timeout.duration, stableFor > limit {
                throw ValidationError("--stable \(stable.text) is longer than --timeout \(timeout.text): "
                                      + "the condition could never hold that long before the timeout")
            }
            if (ipv4 || ipv6) && WaitCondition.Level(level) == .link {
                throw ValidationError("-4 and -6 ask for a path, which --level link does not look at")
            }
            if !host.isEmpty && (ipv4 || ipv6) { throw ValidationError("-4 and -6 do not apply to --host") }
            for item in host where TCPHandshake.split(item) == nil {
                throw ValidationError("--host takes NAME, NAME:PORT or [IPV6]:PORT with a port of 1-65535, not '\(item)'")
            }
            if any && interface.count + host.count < 2 { throw ValidationError("--any needs at least two -i or --host conditions") }
            for item in interface {
                guard let condition = InterfaceCondition(item, defaultLevel: interfaceDefaultLevel) else {
                    throw ValidationError("-i takes IF or IF:link|routable|online, not '\(item)'")
                }
                if matchesAny(condition.name, ignore) {
                    throw ValidationError("-i \(condition.name) matches an --ignore, so it could never be met")
                }
            }
        }

        /// `-i IF` without `:LEVEL` takes `--level` when it names one an interface can have
        /// (`dns` is the network's, not an interface's: routable).
        private var interfaceDefaultLevel: InterfaceCondition.Level {
            switch WaitCondition.Level(level) {
            case .link: .link
            case .online: .online
            default: .routable
            }
        }

        func run() async throws {
            try provider.apply()
            let condition = WaitCondition(
                level: WaitCondition.Level(level)!, ipv4: ipv4, ipv6: ipv6,
                interfaces: interface.compactMap { InterfaceCondition($0, defaultLevel: interfaceDefaultLevel) },
                ignore: ignore, any: any)
            let hosts = host.compactMap(TCPHandshake.split).map { Waiter.Host(name: $0.host, port: $0.port) }
            // validate() took both: a duration within the range, or an unlimited --timeout.
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
