import ArgumentParser

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
        subcommands: [Status.self, Watch.self, Host.self, Wait.self],
        defaultSubcommand: Status.self)
}
