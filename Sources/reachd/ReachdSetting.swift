import ReachdDBus
import ReachdCore
import ReachdEngine
import ReachdService

/// One thing reachd can be told, spelled once: its command-line option, its key in reachd.conf,
/// its line in `--help`, how a value changes ReachdOptions, and how the value in force is
/// written back (for the start-up log). The command line and the file go through the same
/// `apply`, so a key means exactly what its option means; `--help`, the file's key list and the
/// start-up log are made from this table, so a new option is one entry here.
///
/// Keys are the options' names without `--`, in a section for the part of reachd they tune:
/// `[reachd]` the service itself, `[kernel]` the kernel's path (netlink), `[networkmanager]` its
/// check of NetworkManager against that path, `[connectivity]` the check of the Internet, with
/// NetworkManager's own key names (`uri`, `response`, `interval`, `timeout`) so that a
/// distribution's `[connectivity]` lines can be copied over. A flag becomes a boolean key named
/// for what it turns off (`--no-override`: `override=false`).
///
/// Every number is read against an `OptionRange` (durations up to a year, monitor counts up to
/// a million) and refused beyond it with the range: a value nobody bounded became a `Duration`
/// that killed reachd by SIGILL once a timer was armed with it (issue 29).
struct ReachdSetting: Sendable {
    /// `--settle-ms`.
    let option: String
    /// For an option that takes no value, the value it stands for.
    let flagValue: String?
    /// nil for an option with no key (`--replace`).
    let section: String?
    let key: String
    /// The value's name in `--help` (`N`, `ADDRESS`); unused for a flag.
    let valueName: String
    /// Its description in `--help`, one string per line (as wrapped there).
    let help: [String]
    let apply: @Sendable (inout ReachdOptions, String) throws(Refusal) -> Void
    let current: @Sendable (ReachdOptions) -> String

    /// Why a value was refused, as the end of a sentence that starts with the option or key
    /// ("needs a whole number of milliseconds from 0 to 31536000000 (a year), not 'soon'").
    struct Refusal: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The sections of reachd.conf, in the order `--help` and the start-up log list them.
    static let sections = ["reachd", "kernel", "networkmanager", "connectivity"]

    /// The longest a monitor limit may be: far more host monitors than a session's programs make
    /// (the default is 4096 for all of them), and a number whose sum with the monitors in use
    /// cannot overflow.
    static let mostMonitors = 1_000_000

    static let all: [ReachdSetting] = [
        flag("--system", standsFor: true, section: nil, key: "system", \.system,
             help: ["Serve on the system bus (for system services, every local user",
                    "and machines without a session) instead of the session bus;",
                    "read /etc/reachd/reachd.conf. Monitor limits count per user."]),
        flag("--replace", standsFor: true, section: nil, key: "replace", \.replace,
             help: ["Take the bus name over from a running reachd."]),
        ReachdSetting(option: "--system-bus-address", flagValue: nil, section: "reachd", key: "system-bus-address",
                      valueName: "ADDRESS",
                      help: ["Watch the network's daemons (NetworkManager, systemd-networkd,",
                             "ConnMan) and logind on this system bus address instead of the",
                             "usual one (default: $DBUS_SYSTEM_BUS_ADDRESS or the standard socket)."],
                      apply: { options, value throws(Refusal) in
                          guard !value.isEmpty else { throw Refusal("needs a D-Bus address") }
                          // Given, it must be usable: a bus that is not there yet is waited for,
                          // but an address libdbus cannot read never works.
                          if let problem = BusAddress.problem(in: value) {
                              throw Refusal("needs a D-Bus address (unix:path=…), not '\(value)': \(problem)")
                          }
                          options.systemBusAddress = value
                      },
                      current: { $0.systemBusAddress ?? "" }),
        number("--settle-ms", section: "reachd", key: "settle-ms", .milliseconds(from: 0), \.settleMilliseconds,
               help: ["Publish a change only after it has held this many milliseconds",
                      "(flap suppression; default: 0)."]),
        number("--max-monitors-per-client", section: "reachd", key: "max-monitors-per-client",
               .count(from: 1, to: mostMonitors), \.maximumMonitorsPerClient,
               help: ["Host monitors one client connection may hold, with --system one",
                      "user over all its connections (default: 64)."]),
        number("--max-monitors", section: "reachd", key: "max-monitors", .count(from: 1, to: mostMonitors), \.maximumMonitors,
               help: ["Host monitors all clients together may hold (default: 4096)."]),
        ReachdSetting(option: "--log-level", flagValue: nil, section: "reachd", key: "log-level", valueName: "LEVEL",
                      help: ["trace, debug, info, notice, warning, error or critical (default: info)."],
                      apply: { options, value throws(Refusal) in
                          guard ReachdOptions.logLevels.contains(value) else {
                              throw Refusal("is one of \(ReachdOptions.logLevels.joined(separator: ", ")), not '\(value)'")
                          }
                          options.logLevel = value
                      },
                      current: { $0.logLevel }),
        ReachdSetting(option: "--log-target", flagValue: nil, section: "reachd", key: "log-target", valueName: "auto|stderr|syslog",
                      help: ["Where messages go. auto (default): standard error (a terminal,",
                             "a file, a pipe, the journal), or syslog (/dev/log) where standard",
                             "error leads nowhere (closed or /dev/null). stderr or syslog:",
                             "there, or reachd does not start (exit 64)."],
                      apply: { options, value throws(Refusal) in
                          guard let target = LogTarget(rawValue: value) else {
                              throw Refusal("is auto, stderr or syslog, not '\(value)'")
                          }
                          options.logTarget = target
                      },
                      current: { $0.logTarget.rawValue }),
        ReachdSetting(option: "--probe-ipv4", flagValue: nil, section: "kernel", key: "probe-ipv4", valueName: "ADDRESS",
                      help: ["Without NetworkManager, the address whose route stands for the",
                             "Internet (default: the first of 192.0.2.1, 198.51.100.1,",
                             "203.0.113.1 that a default route covers). Set a real global",
                             "address on a router without a default route."],
                      apply: { options, value throws(Refusal) in options.probeIPv4 = try probe(value, family: .v4) },
                      current: { $0.probeIPv4 ?? "" }),
        ReachdSetting(option: "--probe-ipv6", flagValue: nil, section: "kernel", key: "probe-ipv6", valueName: "ADDRESS",
                      help: ["The same for IPv6 (default: 2001:db8::1, then 3fff::1)."],
                      apply: { options, value throws(Refusal) in options.probeIPv6 = try probe(value, family: .v6) },
                      current: { $0.probeIPv6 ?? "" }),
        ReachdSetting(option: "--route-events", flagValue: nil, section: "kernel", key: "route-events", valueName: "all|filtered",
                      help: ["filtered (default): routing daemons' changes to other than",
                             "default routes never wake reachd; all: hear every route change."],
                      apply: { options, value throws(Refusal) in
                          switch value {
                          case "all": options.allRouteEvents = true
                          case "filtered": options.allRouteEvents = false
                          default: throw Refusal("is all or filtered, not '\(value)'")
                          }
                      },
                      current: { $0.allRouteEvents ? "all" : "filtered" }),
        number("--override-delay-ms", section: "networkmanager", key: "override-delay-ms", .milliseconds(from: 0),
               \.overrideDelayMilliseconds,
               help: ["Publish the kernel's answer over the source's (NetworkManager,",
                      "systemd-networkd or ConnMan) only after they have disagreed this",
                      "many milliseconds (default: 1000)."]),
        flag("--no-override", standsFor: false, section: "networkmanager", key: "override", \.overrides,
             help: ["Publish the source's word (NetworkManager, systemd-networkd or",
                    "ConnMan) as it is, never checked against the kernel's path",
                    "(reachd before the cross-check)."]),
        ReachdSetting(option: "--connectivity-uri", flagValue: nil, section: "connectivity", key: "uri", valueName: "URI",
                      help: ["Check the Internet by fetching this http:// URI where",
                             "NetworkManager does not check it (default: no check; an empty",
                             "URI turns a configured check off)."],
                      apply: { options, value throws(Refusal) in options.connectivityURI = try connectivityURI(value) },
                      current: { $0.connectivityURI ?? "" }),
        ReachdSetting(option: "--connectivity-response", flagValue: nil, section: "connectivity", key: "response",
                      valueName: "TEXT",
                      help: ["The body a good answer starts with (default: \"NetworkManager is",
                             "online\"); empty: expect 204 No Content."],
                      apply: { options, value throws(Refusal) in options.connectivityResponse = value },
                      current: { $0.connectivityResponse }),
        number("--connectivity-interval", section: "connectivity", key: "interval", .seconds(from: 0),
               \.connectivityIntervalSeconds,
               help: ["Seconds between checks; 0: only on a change (default: 300)."]),
        number("--connectivity-timeout", section: "connectivity", key: "timeout", .seconds(from: 1),
               \.connectivityTimeoutSeconds,
               help: ["Seconds a check may take (default: 20)."]),
    ]

    /// The setting of `section`'s `key`, if reachd has one.
    static func setting(section: String, key: String) -> ReachdSetting? {
        all.first { $0.section == section && $0.key == key }
    }

    /// The options in force as `[section] key=value` words, for one log line.
    static func describe(_ options: ReachdOptions) -> String {
        var words: [String] = []
        for section in sections {
            words.append("[\(section)]")
            for setting in all where setting.section == section {
                let value = setting.current(options)
                let quoted = value.isEmpty || value.contains(" ") ? "\"\(value)\"" : value
                words.append("\(setting.key)=\(quoted)")
            }
        }
        return words.joined(separator: " ")
    }

    // MARK: Kinds of setting

    /// A whole number within `range`, kept in `field`.
    private static func number(
        _ option: String, section: String, key: String, _ range: OptionRange,
        _ field: WritableKeyPath<ReachdOptions, Int> & Sendable, help: [String]
    ) -> ReachdSetting {
        ReachdSetting(option: option, flagValue: nil, section: section, key: key,
                      valueName: range.unit == .seconds ? "S" : "N", help: help,
                      apply: { options, value throws(Refusal) in
                          guard let number = range.wholeNumber(value) else { throw Refusal("needs \(range), not '\(value)'") }
                          options[keyPath: field] = number
                      },
                      current: { "\($0[keyPath: field])" })
    }

    /// An option that takes no value and stands for the boolean key `key=standsFor` in the
    /// file (`--no-override` is `override=false`).
    private static func flag(
        _ option: String, standsFor value: Bool, section: String?, key: String,
        _ field: WritableKeyPath<ReachdOptions, Bool> & Sendable, help: [String]
    ) -> ReachdSetting {
        ReachdSetting(option: option, flagValue: String(value), section: section, key: key, valueName: "", help: help,
                      apply: { options, value throws(Refusal) in options[keyPath: field] = try boolean(value) },
                      current: { "\($0[keyPath: field])" })
    }

    // MARK: Values

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
        guard !text.utf8.contains(where: { $0 == 0x20 || $0 == 0x09 }) else {
            throw refuse("cannot contain spaces (write one as %20)")
        }
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw refuse("cannot contain control or non-ASCII characters (write a name in its xn-- form)")
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
