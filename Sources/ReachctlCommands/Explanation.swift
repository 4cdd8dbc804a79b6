import Glibc
import ReachdKit

/// What a failed call to reachd means for the person at the terminal, and what fixes it.
///
/// The D-Bus error name stays at the end, in parentheses, whenever the bus or reachd answered
/// with one: it is what `ReachabilityError.name` holds, what a search finds, and what a bug
/// report needs, and it costs one line nothing. A failure no bus answered (there is no session
/// bus at all) carries no name.
///
/// ```
/// reachctl: reachd is not running, and this session bus cannot start it: it is not installed
/// for D-Bus activation. Install it with Scripts/install or the Debian package (sudo apt install
/// ./reachd_*.deb), or start it by hand with 'reachd &' (org.freedesktop.DBus.Error.ServiceUnknown)
/// ```
struct Explanation {
    /// What is missing while reachctl waits: the bus itself, or reachd on it.
    enum Awaited { case sessionBus, systemBus, reachd }

    let awaited: Awaited
    /// The sentence, with the fix where there is one.
    let text: String
    let errorName: String?

    init(_ error: ReachabilityError) {
        if error.hasNoSessionBus {
            awaited = .sessionBus
            text = Self.noSessionBus
            errorName = nil
            return
        }
        errorName = error.name
        let onSystemBus = error.provider == .system
        let provider: ReachabilityProvider = onSystemBus ? .system : .session
        if error.isSessionBusUnusable {
            awaited = onSystemBus ? .systemBus : .sessionBus
            text = onSystemBus ? "cannot connect to the system bus: \(error.message)"
                : "cannot connect to the session bus at \(Self.sessionBusAddress): \(error.message)"
            return
        }
        switch error.name {
        case ReachabilityError.serviceUnknown where onSystemBus:
            awaited = .reachd
            text = """
                reachd is not running on the system bus, and the system bus cannot start it: its system \
                instance is not installed (the Debian package installs it; Scripts/install as root does too, \
                or run 'reachd --system' as root)
                """
        case ReachabilityError.serviceUnknown:
            awaited = .reachd
            text = """
                reachd is not running, and this session bus cannot start it: it is not installed for \
                D-Bus activation. Install it with Scripts/install or the Debian package (sudo apt \
                install ./reachd_*.deb), or start it by hand with 'reachd &'
                """
        case ReachabilityError.otherNetworkNamespace, ReachabilityError.inProcessFailed, ReachabilityError.invalidChoice:
            awaited = .reachd
            text = error.message
        case ReachabilityError.disconnected:
            awaited = onSystemBus ? .systemBus : .sessionBus
            text = "the connection to the \(onSystemBus ? "system" : "session") bus was lost: \(error.message)"
        case ReachabilityError.nameHasNoOwner:
            awaited = .reachd
            text = "reachd left the bus: \(error.message)"
        case ReachabilityError.noReply, "org.freedesktop.DBus.Error.TimedOut":
            awaited = .reachd
            text = "reachd did not answer in time: \(error.message)"
        case _ where error.reachdExitStatus == 64:
            // reachd refused its configuration (or the activation file's command line) before
            // taking its name: say where the problem is and which command names its line.
            awaited = .reachd
            let files = onSystemBus ? ReachdConfigurationFiles.system
                : "\(ReachdConfigurationFiles.user) (or, where that is absent, \(ReachdConfigurationFiles.sessionDefault))"
            text = """
                reachd did not start: \(error.message). Status 64 is reachd refusing its configuration: \
                \(ReachdLog.checkConfig(provider)) lists every problem of \(files) with its line, and \
                its log is \(ReachdLog.of(provider))
                """
        case let name where name.hasPrefix("org.freedesktop.systemd1."):
            // Activation through reachd.service (SystemdService=): systemd says why it did not start it.
            awaited = .reachd
            text = "reachd.service did not start: \(error.message); its log says why (\(ReachdLog.of(provider))), "
                + "and \(ReachdLog.checkConfig(provider)) lists any problem of its configuration file"
        case let name where name.hasPrefix("org.freedesktop.DBus.Error.Spawn."):
            awaited = .reachd
            text = "reachd is installed for D-Bus activation but did not start: \(error.message); "
                + "its log says why (\(ReachdLog.of(provider)))"
        default:
            awaited = .reachd
            text = error.message
        }
    }

    /// For a command that gives up: the sentence and the error name.
    var sentence: String {
        text + (errorName.map { " (\($0))" } ?? "")
    }

    /// For a command that waits (`watch`, `host --watch`): the sentence, then what it waits for.
    var waitingSentence: String {
        sentence + "; waiting for " + (awaited == .sessionBus ? "a session bus" : awaited == .systemBus ? "the system bus" : "reachd")
    }

    /// Where the library looked for the bus, as it looks (`Connection.session()`).
    private static var noSessionBus: String {
        guard let runtime = environment("XDG_RUNTIME_DIR") else {
            return "no session bus: neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set. \(startOne)"
        }
        return "no session bus: DBUS_SESSION_BUS_ADDRESS is not set, and there is no \(runtime)/bus ($XDG_RUNTIME_DIR/bus). \(startOne)"
    }

    private static let startOne = "A desktop session has one; elsewhere start one with dbus-run-session"

    private static var sessionBusAddress: String {
        if let address = environment("DBUS_SESSION_BUS_ADDRESS") { return "\(address) ($DBUS_SESSION_BUS_ADDRESS)" }
        return "\(environment("XDG_RUNTIME_DIR") ?? "")/bus ($XDG_RUNTIME_DIR/bus)"
    }

    /// A variable's value; an empty one counts as unset, as the library counts it.
    private static func environment(_ name: String) -> String? {
        guard let value = getenv(name).map({ String(cString: $0) }), !value.isEmpty else { return nil }
        return value
    }
}
