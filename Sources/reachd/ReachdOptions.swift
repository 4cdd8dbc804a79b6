import ReachdCore
import ReachdEngine
import ReachdService

/// What reachd runs with: its command line over its configuration file over
/// these defaults.
///
/// Parsed by hand. Why not swift-argument-parser (reachctl dropped it too, for CommandGrammar): it
/// links FoundationEssentials, whose metadata the runtime touches at start-up, and
/// that alone cost reachd about 4 MiB of its 8 MiB resident-memory budget
/// (docs/design.md, "One thread"; README, Benchmarks). Fifteen options do not need a framework:
/// each is one entry of ReachdSetting's table, which parsing, reachd.conf and `--help` read.
struct ReachdOptions: Equatable {
    /// `--system`: serve on the system bus, for every local user.
    var system = false
    var replace = false
    var systemBusAddress: String?
    var settleMilliseconds = 0
    var maximumMonitorsPerClient = 64
    var maximumMonitors = 4096
    var logLevel = "info"
    /// `--log-target`: where messages go (LogDestination decides for `auto`).
    var logTarget = LogTarget.auto
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

    /// `--help`, made from the settings' table (ReachdSetting) and `commandLineOnly`.
    static var help: String {
        var text = """
            OVERVIEW: Publish network reachability (io.reachd.Reachability1) on the session bus,
                      or with --system on the system bus for every local user.


            """
        text += wrap(["USAGE: reachd"] + usageItems, width: 98, indent: 14)
        text += "\n       reachd --check-config [--system] [--config FILE]\n\nOPTIONS:\n"
        let entries = ReachdSetting.all.map { setting in
            (setting.flagValue == nil ? "\(setting.option) \(setting.valueName)" : setting.option, setting.help)
        } + commandLineOnly
        for (name, lines) in entries {
            if name.count <= 22 {
                text += "  " + name + String(repeating: " ", count: 24 - name.count) + lines[0] + "\n"
                text += lines.dropFirst().map { String(repeating: " ", count: 26) + $0 + "\n" }.joined()
            } else {
                text += "  " + name + "\n" + lines.map { String(repeating: " ", count: 26) + $0 + "\n" }.joined()
            }
        }
        text += """

              S and N are whole numbers: durations up to a year (\(OptionRange.secondsInAYear) s, \
            \(OptionRange.secondsInAYear)000 ms),
              monitor limits up to \(ReachdSetting.mostMonitors).

            CONFIGURATION FILE:
              reachd reads the first of $XDG_CONFIG_HOME/reachd/reachd.conf (~/.config by default)
              and reachd.conf in each of $XDG_CONFIG_DIRS (default /etc/xdg/reachd/reachd.conf)
              that exists; reachd --system reads /etc/reachd/reachd.conf. Only a regular file is read,
              never through a symbolic link. Every option but \(ReachdSetting.all.filter { $0.section == nil }.map(\.option).joined(separator: ", ")) \
            has a key there; the command line wins. A bad line or value stops reachd (exit 64),
              an unknown section or key is a warning; reachd --check-config lists them all.
              Comments (# or ;) go on a line of their own: a value is the rest of its line.

            """
        for section in ReachdSetting.sections {
            let name = "[\(section)]"
            var keys = ReachdSetting.all.filter { $0.section == section }.map { setting in
                setting.flagValue == nil ? setting.key : "\(setting.key) (true or false)"
            }
            if section == "connectivity" { keys[keys.count - 1] += " (and enabled, as NetworkManager's)" }
            let words = keys.enumerated().map { index, key in index < keys.count - 1 ? key + "," : key }
            text += wrap(["    " + name + String(repeating: " ", count: 18 - name.count) + words[0]] + words.dropFirst(),
                         width: 90, indent: 22) + "\n"
        }
        text += """
              For example:
                [reachd]
                settle-ms=500
                [connectivity]
                uri=http://nmcheck.gnome.org/check_network_status.txt

            """
        return text
    }

    /// The options of the command line alone, for `--help`: what to read, or what else to do.
    static let commandLineOnly: [(name: String, help: [String])] = [
        ("--config FILE", ["Read this configuration file instead of the usual one (none",
                           "there is no error: reachd serves without it). With --system,",
                           "only a file root owns and only root can write, in folders only",
                           "root can write up to / (as sudo reads sudoers)."]),
        ("--no-config", ["Read no configuration file."]),
        ("--check-config", ["Check the configuration file and exit, as sshd -t: every problem",
                            "as FILE:LINE; exit 0 when clean, 1 with warnings, 64 with errors."]),
        ("--version", ["Show reachd's version and exit."]),
        ("-h, --help", ["Show this help."]),
    ]

    /// `[--settle-ms N]` for each setting, then the choice of file.
    private static var usageItems: [String] {
        ReachdSetting.all.map { setting in
            setting.flagValue == nil ? "[\(setting.option) \(setting.valueName)]" : "[\(setting.option)]"
        } + ["[--config FILE | --no-config]"]
    }

    /// `words` joined by spaces into lines of at most `width` characters, each after the first
    /// starting with `indent` spaces.
    private static func wrap(_ words: [String], width: Int, indent: Int) -> String {
        var lines: [String] = []
        var line = ""
        for word in words {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = String(repeating: " ", count: indent) + word
            } else {
                line += line.isEmpty ? word : " " + word
            }
        }
        return (lines + [line]).joined(separator: "\n")
    }

    /// What the command line asks for.
    enum Request: Equatable {
        case run(ReachdCommandLine)
        /// `--check-config`: report every problem of the configuration file, and exit.
        case checkConfiguration(ReachdCommandLine)
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
        var checksConfiguration = false
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
            case "--check-config":
                guard inlineValue == nil else { throw UsageError(description: "--check-config takes no value") }
                checksConfiguration = true
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
        return checksConfiguration ? .checkConfiguration(commandLine) : .run(commandLine)
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
        /// `--config FILE`: this file (where it is not there, none).
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
