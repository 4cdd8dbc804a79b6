import ReachabilityService

/// What reachd runs with: its command line over its configuration file over
/// these defaults.
///
/// Parsed by hand. Why not swift-argument-parser, as reachctl uses: it links
/// FoundationEssentials, whose metadata the runtime touches at start-up, and
/// that alone cost reachd about 4 MiB of its 8 MiB resident-memory budget
/// (docs/design.md, "One thread"; README, Benchmarks). Fifteen options do not need a framework.
struct ReachdOptions: Equatable {
    /// `--system`: serve on the system bus, for every local user.
    var system = false
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
        OVERVIEW: Publish network reachability (io.reachd.Reachability1) on the session bus,
                  or with --system on the system bus for every local user.

        USAGE: reachd [--system] [--replace] [--system-bus-address ADDRESS] [--settle-ms N]
                      [--max-monitors-per-client N] [--max-monitors N] [--log-level LEVEL]
                      [--probe-ipv4 ADDRESS] [--probe-ipv6 ADDRESS] [--route-events all|filtered]
                      [--override-delay-ms N] [--no-override]
                      [--connectivity-uri URI] [--connectivity-response TEXT]
                      [--connectivity-interval S] [--connectivity-timeout S]
                      [--config FILE | --no-config]

        OPTIONS:
          --system                Serve on the system bus (for system services, every local user
                                  and machines without a session) instead of the session bus;
                                  read /etc/reachd/reachd.conf. Monitor limits count per user.
          --replace               Take the bus name over from a running reachd.
          --system-bus-address ADDRESS
                                  Watch NetworkManager on this system bus address instead of the
                                  usual one (default: $DBUS_SYSTEM_BUS_ADDRESS or the standard socket).
          --settle-ms N           Publish a change only after it has held this many milliseconds
                                  (flap suppression; default: 0).
          --max-monitors-per-client N
                                  Host monitors one client connection may hold, with --system one
                                  user over all its connections (default: 64).
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
          --config FILE           Read this configuration file instead of the usual one.
          --no-config             Read no configuration file.
          --version               Show reachd's version and exit.
          -h, --help              Show this help.

        CONFIGURATION FILE:
          reachd reads the first of $XDG_CONFIG_HOME/reachd/reachd.conf (~/.config by default)
          and reachd.conf in each of $XDG_CONFIG_DIRS (default /etc/xdg/reachd/reachd.conf)
          that exists; reachd --system reads /etc/reachd/reachd.conf. Every option but --system
          and --replace has a key there; the command line wins.
            [reachd]          system-bus-address, settle-ms, max-monitors-per-client,
                              max-monitors, log-level
            [kernel]          probe-ipv4, probe-ipv6, route-events
            [networkmanager]  override (true or false), override-delay-ms
            [connectivity]    uri, response, interval, timeout (and enabled, as NetworkManager's)
          For example:
            [reachd]
            settle-ms=500
            [connectivity]
            uri=http://nmcheck.gnome.org/check_network_status.txt

        """

    /// What the command line asks for.
    enum Request: Equatable {
        case run(ReachdCommandLine)
        case help
        case version
    }

    struct UsageError: Error, Equatable, CustomStringConvertible {
        let description: String
    }

    /// Parses the arguments after the program name. Options take their value
    /// as the next argument or after `=`, as swift-argument-parser's did.
    /// Values are checked here, so that a bad command line is reported before
    /// any file is read; `ReachdCommandLine.options(over:)` applies them.
    static func parse(_ arguments: [String]) throws(UsageError) -> Request {
        var commandLine = ReachdCommandLine()
        var checked = ReachdOptions()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            let (name, inlineValue) = split(argument)
            switch name {
            case "-h", "--help":
                return .help
            case "--version":
                return .version
            case "--config":
                guard let path = inlineValue ?? remaining.popFirst() else { throw UsageError(description: "missing value for '--config'") }
                guard !path.isEmpty else { throw UsageError(description: "--config needs a file name") }
                commandLine.configuration = .file(path)
                continue
            case "--no-config":
                guard inlineValue == nil else { throw UsageError(description: "--no-config takes no value") }
                commandLine.configuration = .none
                continue
            default:
                break
            }
            guard let setting = ReachdSetting.all.first(where: { $0.option == name }) else {
                throw UsageError(description: "unknown argument '\(argument)'")
            }
            let value: String
            if let flagValue = setting.flagValue {
                guard inlineValue == nil else { throw UsageError(description: "\(name) takes no value") }
                value = flagValue
            } else if let given = inlineValue ?? remaining.popFirst() {
                value = given
            } else {
                throw UsageError(description: "missing value for '\(name)'")
            }
            do {
                try setting.apply(&checked, value)
            } catch {
                throw UsageError(description: "\(name) \(error)")
            }
            commandLine.settings.append((setting, value))
        }
        return .run(commandLine)
    }

    private static func split(_ argument: String) -> (name: String, value: String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }
}

/// A parsed command line: which configuration file to read, and the options
/// given, in order, to apply over it.
struct ReachdCommandLine: Equatable {
    enum Configuration: Equatable {
        /// The XDG search (ConfigurationFile.searchPaths).
        case search
        /// `--config FILE`: this file, which must exist.
        case file(String)
        /// `--no-config`.
        case none
    }

    var configuration = Configuration.search
    var settings: [(setting: ReachdSetting, value: String)] = []

    /// `--system` was given: it decides which file is read, so it is known before the file is.
    var servesSystemBus: Bool { settings.contains { $0.setting.option == "--system" } }

    /// `base` (the file's options) with the command line's applied over it.
    func options(over base: ReachdOptions) -> ReachdOptions {
        var options = base
        // Checked in parse(_:): a refusal here would be a bug.
        for (setting, value) in settings { try! setting.apply(&options, value) }
        return options
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.configuration == rhs.configuration
            && lhs.settings.map { [$0.setting.option, $0.value] } == rhs.settings.map { [$0.setting.option, $0.value] }
    }
}
