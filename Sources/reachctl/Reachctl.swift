import ArgumentParser
import BuildVersion
import Glibc

/// `reachctl`: reachd's reachability for people and scripts, over the `Reachability` library.
@main
struct Reachctl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reachctl",
        abstract: "Show and watch network reachability as reachd (io.reachd.Reachability1) publishes it.",
        discussion: """
            reachctl talks to reachd on the session bus ($DBUS_SESSION_BUS_ADDRESS), starting it by \
            D-Bus activation where it is installed. The status is printed in the locale's language \
            (LC_ALL, LC_MESSAGES, LANG: English or Simplified Chinese), the flags by their \
            SCNetworkReachabilityFlags names.

            \(ExitStatus.help)
            """,
        version: "reachctl \(reachdVersion)",
        subcommands: [Status.self, Watch.self, Host.self, Wait.self, Path.self],
        defaultSubcommand: Status.self)

    /// `status` is the default subcommand, so ArgumentParser would read an unknown
    /// word (`reachctl stauts`) as an argument to it, and `help` shows the overview
    /// for a word it does not know (`reachctl help stauts`), exiting 0. A word in
    /// either place that is no option and no command is a usage error that names
    /// the commands.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        let commands = configuration.subcommands.map { $0._commandName } + ["help"]
        let word = arguments.first == "help" ? arguments.dropFirst().first : arguments.first
        if let word, !word.hasPrefix("-"), !commands.contains(word) {
            Output.error("unknown command '\(word)'; the commands are \(commands.joined(separator: ", "))")
            Glibc.exit(ExitStatus.usage.rawValue)
        }
        await main(arguments)
    }
}
