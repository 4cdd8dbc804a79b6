import ReachabilityService

/// One thing reachd can be told, spelled once: its command-line option, its
/// key in reachd.conf, how a value changes ReachdOptions, and how the value in
/// force is written back (for the start-up log). The command line and the file
/// go through the same `apply`, so a key means exactly what its option means.
///
/// Keys are the options' names without `--`, in a section for the part of
/// reachd they tune: `[reachd]` the service itself, `[kernel]` the kernel's
/// path (netlink), `[networkmanager]` its check of NetworkManager against that
/// path, `[connectivity]` the check of the Internet, with NetworkManager's own
/// key names (`uri`, `response`, `interval`, `timeout`) so that a
/// distribution's `[connectivity]` lines can be copied over. A flag becomes a
/// boolean key named for what it turns off (`--no-override`: `override=false`).
struct ReachdSetting: Sendable {
    /// `--settle-ms`.
    let option: String
    /// For an option that takes no value, the value it stands for.
    let flagValue: String?
    /// nil for an option with no key (`--replace`).
    let section: String?
    let key: String
    let apply: @Sendable (inout ReachdOptions, String) throws(Refusal) -> Void
    let current: @Sendable (ReachdOptions) -> String

    /// Why a value was refused, as the end of a sentence that starts with the
    /// option or key ("needs a whole number of at least 0, not 'soon'").
    struct Refusal: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static let all: [ReachdSetting] = [
        ReachdSetting(option: "--system", flagValue: "true", section: nil, key: "system",
                      apply: { options, value throws(Refusal) in options.system = try boolean(value) },
                      current: { "\($0.system)" }),
        ReachdSetting(option: "--replace", flagValue: "true", section: nil, key: "replace",
                      apply: { options, value throws(Refusal) in options.replace = try boolean(value) },
                      current: { "\($0.replace)" }),
        ReachdSetting(option: "--system-bus-address", flagValue: nil, section: "reachd", key: "system-bus-address",
                      apply: { options, value throws(Refusal) in
                          guard !value.isEmpty else { throw Refusal("needs a D-Bus address") }
                          options.systemBusAddress = value
                      },
                      current: { $0.systemBusAddress ?? "" }),
        ReachdSetting(option: "--settle-ms", flagValue: nil, section: "reachd", key: "settle-ms",
                      apply: { options, value throws(Refusal) in options.settleMilliseconds = try count(value, atLeast: 0) },
                      current: { "\($0.settleMilliseconds)" }),
        ReachdSetting(option: "--max-monitors-per-client", flagValue: nil, section: "reachd", key: "max-monitors-per-client",
                      apply: { options, value throws(Refusal) in options.maximumMonitorsPerClient = try count(value, atLeast: 1) },
                      current: { "\($0.maximumMonitorsPerClient)" }),
        ReachdSetting(option: "--max-monitors", flagValue: nil, section: "reachd", key: "max-monitors",
                      apply: { options, value throws(Refusal) in options.maximumMonitors = try count(value, atLeast: 1) },
                      current: { "\($0.maximumMonitors)" }),
        ReachdSetting(option: "--log-level", flagValue: nil, section: "reachd", key: "log-level",
                      apply: { options, value throws(Refusal) in
                          guard ReachdOptions.logLevels.contains(value) else {
                              throw Refusal("is one of \(ReachdOptions.logLevels.joined(separator: ", ")), not '\(value)'")
                          }
                          options.logLevel = value
                      },
                      current: { $0.logLevel }),
        ReachdSetting(option: "--probe-ipv4", flagValue: nil, section: "kernel", key: "probe-ipv4",
                      apply: { options, value throws(Refusal) in options.probeIPv4 = try probe(value, family: .v4) },
                      current: { $0.probeIPv4 ?? "" }),
        ReachdSetting(option: "--probe-ipv6", flagValue: nil, section: "kernel", key: "probe-ipv6",
                      apply: { options, value throws(Refusal) in options.probeIPv6 = try probe(value, family: .v6) },
                      current: { $0.probeIPv6 ?? "" }),
        ReachdSetting(option: "--route-events", flagValue: nil, section: "kernel", key: "route-events",
                      apply: { options, value throws(Refusal) in
                          switch value {
                          case "all": options.allRouteEvents = true
                          case "filtered": options.allRouteEvents = false
                          default: throw Refusal("is all or filtered, not '\(value)'")
                          }
                      },
                      current: { $0.allRouteEvents ? "all" : "filtered" }),
        ReachdSetting(option: "--override-delay-ms", flagValue: nil, section: "networkmanager", key: "override-delay-ms",
                      apply: { options, value throws(Refusal) in options.overrideDelayMilliseconds = try count(value, atLeast: 0) },
                      current: { "\($0.overrideDelayMilliseconds)" }),
        ReachdSetting(option: "--no-override", flagValue: "false", section: "networkmanager", key: "override",
                      apply: { options, value throws(Refusal) in options.overrides = try boolean(value) },
                      current: { "\($0.overrides)" }),
        ReachdSetting(option: "--connectivity-uri", flagValue: nil, section: "connectivity", key: "uri",
                      apply: { options, value throws(Refusal) in options.connectivityURI = try connectivityURI(value) },
                      current: { $0.connectivityURI ?? "" }),
        ReachdSetting(option: "--connectivity-response", flagValue: nil, section: "connectivity", key: "response",
                      apply: { options, value throws(Refusal) in options.connectivityResponse = value },
                      current: { $0.connectivityResponse }),
        ReachdSetting(option: "--connectivity-interval", flagValue: nil, section: "connectivity", key: "interval",
                      apply: { options, value throws(Refusal) in options.connectivityIntervalSeconds = try count(value, atLeast: 0) },
                      current: { "\($0.connectivityIntervalSeconds)" }),
        ReachdSetting(option: "--connectivity-timeout", flagValue: nil, section: "connectivity", key: "timeout",
                      apply: { options, value throws(Refusal) in options.connectivityTimeoutSeconds = try count(value, atLeast: 1) },
                      current: { "\($0.connectivityTimeoutSeconds)" }),
    ]

    /// The options in force as `[section] key=value` words, for one log line.
    static func describe(_ options: ReachdOptions) -> String {
        var words: [String] = [], section: String?
        for setting in all {
            guard let settingSection = setting.section else { continue }
            if settingSection != section {
                words.append("[\(settingSection)]")
                section = settingSection
            }
            let value = setting.current(options)
            let quoted = value.isEmpty || value.contains(" ") ? "\"\(value)\"" : value
            words.append("\(setting.key)=\(quoted)")
        }
        return words.joined(separator: " ")
    }

    // MARK: Values

    private static func count(_ text: String, atLeast minimum: Int) throws(Refusal) -> Int {
        guard let number = Int(text), number >= minimum else {
            throw Refusal("needs a whole number of at least \(minimum), not '\(text)'")
        }
        return number
    }

    /// As GLib's key files read booleans (true/false, 1/0), plus yes/no and on/off.
    static func boolean(_ text: String) throws(Refusal) -> Bool {
        switch text.lowercased() {
        case "true", "yes", "on", "1": return true
        case "false", "no", "off", "0": return false
        default: throw Refusal("is true or false, not '\(text)'")
        }
    }

    /// A probe must be a global-looking address of its family: 0.0.0.0 and ::
    /// are answered by the kernel as local, so they would say "reachable" always.
    private static func probe(_ text: String, family: IPAddress.Family) throws(Refusal) -> String {
        guard let address = IPAddress(strict: text), address.family == family, address.zone.isEmpty else {
            throw Refusal("needs an \(family == .v4 ? "IPv4" : "IPv6") address, not '\(text)'")
        }
        guard address.bytes.contains(where: { $0 != 0 }) else {
            throw Refusal("cannot be \(text): the kernel answers it as a local address")
        }
        return text
    }

    /// The check speaks plain HTTP/1.1 only: a portal cannot intercept TLS
    /// without breaking it, and reachd carries no TLS stack. "" means no check.
    static func connectivityURI(_ text: String) throws(Refusal) -> String? {
        guard !text.isEmpty else { return nil }
        func refuse(_ why: String) -> Refusal { Refusal("\(why), not '\(text)'") }
        guard text.utf8.count > 7, text.prefix(7).lowercased() == "http://" else {
            throw refuse("needs an http:// URI (the check speaks plain HTTP)")
        }
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw refuse("cannot contain spaces, control or non-ASCII characters (write a name in its xn-- form)")
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
        // The check's own reading of the URI must agree, or reachd would stop later, after
        // taking its bus name, without the file and line.
        do {
            _ = try ConnectivityCheckConfiguration(uri: text)
        } catch {
            throw refuse("cannot be probed: \(error.reason)")
        }
        return text
    }
}
