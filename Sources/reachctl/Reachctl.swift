import ArgumentParser
import ReachdBuildVersion
import Glibc

/// `reachctl`: reachd's reachability for people and scripts, over the `ReachdKit` library.
/// `ReachctlMain` runs it.
struct Reachctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reachctl",
        abstract: "Show and watch network reachability as reachd (io.reachd.Reachability1) publishes it.",
        discussion: """
            reachctl asks the nearest reachd that shares its network namespace: the one on the \
            session bus ($DBUS_SESSION_BUS_ADDRESS), started by D-Bus activation where it is \
            installed, else the one on the system bus; where neither answers, reachd's engine runs \
            in reachctl itself. --service (or REACHD_SERVICE) chooses one: session, system or \
            in-process; status says which answered. The status is printed in the locale's language \
            (LC_ALL, LC_MESSAGES, LANG: English or Simplified Chinese), the flags by their \
            SCNetworkReachabilityFlags names.

            \(ExitStatus.help)
            """,
        version: "reachctl \(reachdVersion)",
        subcommands: [Status.self, Watch.self, Host.self, Wait.self, Path.self],
        defaultSubcommand: Status.self)

    /// `reachctl --service system status` as `reachctl status --service system`: the option is
    /// each command's, and reads naturally before the command too.
    static func serviceAfterCommand(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var rest = arguments[...]
        while let first = rest.first, first.hasPrefix("--service") {
            leading.append(rest.removeFirst())
            if first == "--service", let value = rest.first {
                leading.append(value)
                rest.removeFirst()
            }
        }
        guard !leading.isEmpty else { return arguments }
        guard let command = rest.first, !command.hasPrefix("-") else { return Array(rest) + leading }
        return [command] + leading + Array(rest.dropFirst())
    }

    /// `status` is the default subcommand, so ArgumentParser would read an unknown
    /// word (`reachctl stauts`) as an argument to it, and `help` shows the overview
    /// for a word it does not know (`reachctl help stauts`), exiting 0. A word in
    /// either place that is no option and no command is a usage error that names
    /// the commands.
    ///
    /// ArgumentParser's own errors are reworded to reachctl's: every error line starts
    /// `reachctl: ` (as Output.error's do), and an error with no command word (`reachctl --bogus`,
    /// parsed as the default `status`) shows reachctl's usage, not status's alone.
    static func main() async {
        let arguments = serviceAfterCommand(Array(CommandLine.arguments.dropFirst()))
        let word = arguments.first == "help" ? arguments.dropFirst().first : arguments.first
        if let word, !word.hasPrefix("-"), !commandWords.contains(word) {
            Output.error("unknown command '\(word)'; the commands are \(commandWords.joined(separator: ", "))")
            Glibc.exit(ExitStatus.usage.rawValue)
        }
        do {
            var command = try await asyncParseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(reporting: error, givenCommand: arguments.first.map(commandWords.contains) ?? false)
        }
    }

    private static var commandWords: [String] { configuration.subcommands.map { $0._commandName } + ["help"] }

    /// As ArgumentParser's `exit(withError:)`: help and version on standard output, exit 0;
    /// anything else on standard error in reachctl's words, with its exit status.
    private static func exit(reporting error: any Error, givenCommand: Bool) -> Never {
        let status = exitCode(for: error)
        let text = fullMessage(for: error)
        if status == .success {
            if !text.isEmpty { print(text) }
            Glibc.exit(status.rawValue)
        }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let first = lines.first, first.hasPrefix("Error: ") {
            lines[0] = "reachctl: " + lowercasedFirstWord(String(first.dropFirst("Error: ".count)))
        }
        if !givenCommand, let usage = lines.firstIndex(where: { $0.hasPrefix("Usage: ") }) {
            lines[usage...] = [
                "Usage: reachctl [<command>] [<options>]  (commands: \(commandWords.joined(separator: ", ")); status when none is given)",
                "  See 'reachctl --help' for more information.",
            ]
        }
        let joined = lines.joined(separator: "\n")
        if !joined.isEmpty { Output.standardError(joined) }
        Glibc.exit(status.rawValue)
    }

    /// `Unknown option` → `unknown option`, as reachctl's own sentences start; a word in capitals
    /// (`IPv4`) or an option (`--timeout`) stays as it is.
    private static func lowercasedFirstWord(_ text: String) -> String {
        guard let first = text.first, first.isUppercase, let second = text.dropFirst().first, second.isLowercase else { return text }
        return first.lowercased() + text.dropFirst()
    }
}
