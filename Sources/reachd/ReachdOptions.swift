import ReachabilityService

/// reachd's command line, parsed by hand.
///
/// Why not swift-argument-parser, as reachctl uses: it links
/// FoundationEssentials, whose metadata the runtime touches at start-up, and
/// that alone cost reachd about 4 MiB of its 8 MiB resident-memory budget
/// (docs/design.md, "One thread"; README, Benchmarks). Eleven options do not need a framework.
struct ReachdOptions: Equatable {
    var replace = false
    var systemBusAddress: String?
    var settleMilliseconds = 0
    var maximumMonitorsPerClient = 64
    var maximumMonitors = 4096
    var logLevel = "info"
    var probeIPv4: String?
    var probeIPv6: String?
    var allRouteEvents = false
    var overrides = true
    var overrideDelayMilliseconds = 1000
    /// reachd's own connectivity check (contract-3 §2.2): off while nil.
    var connectivityURI: String?
    /// The body that starts a good answer; "" expects 204 No Content.
    var connectivityResponse = "NetworkManager is online"
    /// Seconds between checks; 0: only on a change and on CheckConnectivity().
    var connectivityIntervalSeconds = 300
    var connectivityTimeoutSeconds = 20

    static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    static let help = """
        OVERVIEW: Publish network reachability (io.reachd.Reachability1) on the session bus.

        USAGE: reachd [--replace] [--system-bus-address ADDRESS] [--settle-ms N]
                      [--max-monitors-per-client N] [--max-monitors N] [--log-level LEVEL]
                      [--probe-ipv4 ADDRESS] [--probe-ipv6 ADDRESS] [--route-events all|filtered]
                      [--override-delay-ms N] [--no-override]
                      [--connectivity-uri URI] [--connectivity-response TEXT]
                      [--connectivity-interval S] [--connectivity-timeout S]

        OPTIONS:
          --replace               Take the bus name over from a running reachd.
          --system-bus-address ADDRESS
                                  Watch NetworkManager on this system bus address instead of the
                                  usual one (default: $DBUS_SYSTEM_BUS_ADDRESS or the standard socket).
          --settle-ms N           Publish a change only after it has held this many milliseconds
                                  (flap suppression; default: 0).
          --max-monitors-per-client N
                                  Host monitors one client connection may hold (default: 64).
          --max-monitors N        Host monitors all clients together may hold (default: 4096).
          --log-level LEVEL       trace, debug, info, notice, warning, error or critical (default: info).
          --probe-ipv4 ADDRESS    Without NetworkManager, the address whose route stands for the
                                  Internet (default: the first of 192.0.2.1, 198.51.100.1,
                                  203.0.113.1 that a default route covers). Set a real global
                                  address on a router without a default route.
          --probe-ipv6 ADDRESS    The same for IPv6 (default: 2001:db8::1, then 3fff::1).
          --route-events all|filtered
                                  filtered (default): routing daemons' changes to other than
                                  default routes never wake reachd; all: hear every route change.
          --override-delay-ms N   Publish the kernel's answer over NetworkManager's only after they
                                  have disagreed this many milliseconds (default: 1000).
          --no-override           Publish NetworkManager's word as it is, never checked against
                                  the kernel's path (reachd before the cross-check).
          --connectivity-uri URI  Check the Internet by fetching this http:// URI where
                                  NetworkManager does not check it (default: no check; an empty
                                  URI turns a configured check off).
          --connectivity-response TEXT
                                  The body a good answer starts with (default: "NetworkManager is
                                  online"); empty: expect 204 No Content.
          --connectivity-interval S
                                  Seconds between checks; 0: only on a change (default: 300).
          --connectivity-timeout S
                                  Seconds a check may take (default: 20).
          --version               Show reachd's version and exit.
          -h, --help              Show this help.

        """

    /// What the command line asks for.
    enum Request: Equatable {
        case run(ReachdOptions)
        case help
        case version
    }

    struct UsageError: Error, Equatable, CustomStringConvertible {
        let description: String
    }

    /// Parses the arguments after the program name. Options take their value
    /// as the next argument or after `=`, as swift-argument-parser's did.
    static func parse(_ arguments: [String]) throws(UsageError) -> Request {
        var options = ReachdOptions()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            let (name, inlineValue) = split(argument)
            func value() throws(UsageError) -> String {
                if let inlineValue { return inlineValue }
                guard let next = remaining.popFirst() else { throw UsageError(description: "missing value for '\(name)'") }
                return next
            }
            func count(atLeast minimum: Int) throws(UsageError) -> Int {
                let text = try value()
                guard let number = Int(text), number >= minimum else {
                    throw UsageError(description: "\(name) needs a whole number of at least \(minimum), not '\(text)'")
                }
                return number
            }
            switch name {
            case "-h", "--help":
                return .help
            case "--version":
                return .version
            case "--replace":
                guard inlineValue == nil else { throw UsageError(description: "--replace takes no value") }
                options.replace = true
            case "--system-bus-address":
                options.systemBusAddress = try value()
            case "--settle-ms":
                options.settleMilliseconds = try count(atLeast: 0)
            case "--max-monitors-per-client":
                options.maximumMonitorsPerClient = try count(atLeast: 1)
            case "--max-monitors":
                options.maximumMonitors = try count(atLeast: 1)
            case "--log-level":
                let level = try value()
                guard logLevels.contains(level) else {
                    throw UsageError(description: "unknown --log-level '\(level)' (one of \(logLevels.joined(separator: ", ")))")
                }
                options.logLevel = level
            case "--probe-ipv4":
                options.probeIPv4 = try probe(value(), family: .v4, name: name)
            case "--probe-ipv6":
                options.probeIPv6 = try probe(value(), family: .v6, name: name)
            case "--override-delay-ms":
                options.overrideDelayMilliseconds = try count(atLeast: 0)
            case "--no-override":
                guard inlineValue == nil else { throw UsageError(description: "--no-override takes no value") }
                options.overrides = false
            case "--route-events":
                switch try value() {
                case "all": options.allRouteEvents = true
                case "filtered": options.allRouteEvents = false
                case let other: throw UsageError(description: "--route-events is all or filtered, not '\(other)'")
                }
            case "--connectivity-uri":
                options.connectivityURI = try connectivityURI(value(), name: name)
            case "--connectivity-response":
                options.connectivityResponse = try value()
            case "--connectivity-interval":
                options.connectivityIntervalSeconds = try count(atLeast: 0)
            case "--connectivity-timeout":
                options.connectivityTimeoutSeconds = try count(atLeast: 1)
            default:
                throw UsageError(description: "unknown argument '\(argument)'")
            }
        }
        return .run(options)
    }

    /// A probe must be a global-looking address of its family: 0.0.0.0 and ::
    /// are answered by the kernel as local, so they would say "reachable" always.
    private static func probe(_ text: String, family: IPAddress.Family, name: String) throws(UsageError) -> String {
        guard let address = IPAddress(strict: text), address.family == family, address.zone.isEmpty else {
            throw UsageError(description: "\(name) needs an \(family == .v4 ? "IPv4" : "IPv6") address, not '\(text)'")
        }
        guard address.bytes.contains(where: { $0 != 0 }) else {
            throw UsageError(description: "\(name) cannot be \(text): the kernel answers it as a local address")
        }
        return text
    }

    /// The check speaks plain HTTP/1.1 only: a portal cannot intercept TLS
    /// without breaking it, and reachd carries no TLS stack. "" means no check.
    static func connectivityURI(_ text: String, name: String) throws(UsageError) -> String? {
        guard !text.isEmpty else { return nil }
        func refuse(_ why: String) -> UsageError { UsageError(description: "\(name) \(why), not '\(text)'") }
        guard text.utf8.count > 7, text.prefix(7).lowercased() == "http://" else {
            throw refuse("needs an http:// URI (the check speaks plain HTTP)")
        }
        guard !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else {
            throw refuse("cannot contain spaces or control characters")
        }
        let rest = text.dropFirst(7)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@") else { throw refuse("takes no user name or password") }
        var host = authority[...], port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]"),
                  let address = IPAddress(strict: String(authority[authority.index(after: authority.startIndex)..<close])),
                  address.family == .v6 else { throw refuse("needs a host") }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw refuse("needs a host") }
                port = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty else { throw refuse("needs a host") }
        if let port {
            guard let number = Int(port), (1...65535).contains(number) else { throw refuse("needs a port from 1 to 65535") }
        }
        return text
    }

    private static func split(_ argument: String) -> (name: String, value: String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }
}
