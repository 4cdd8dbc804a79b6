import Glibc

/// A start reachd refuses (a configuration it cannot use), under an init that starts it again
/// the moment it exits: BusyBox's `respawn` line, sysvinit's. Exiting at once would have init
/// start it again and again (29 starts in 30 s measured under BusyBox, a console line each);
/// instead reachd waits out `seconds` before it exits, so such an init starts it at most once
/// per `seconds` (6 in 30 s), while the error waits in the log and GLib apps and reachctl answer
/// without it (GLib's own monitor, the engine in process).
///
/// Not under systemd (its unit has its own restart delay and start limit), nor where reachd was
/// started by anything else (a shell, the bus's activation, an init script's `start-stop-daemon
/// --background`, whose daemon init adopts but never restarts, with its output on /dev/null):
/// they see exit 64 at once. A SIGTERM meanwhile ends the wait: its default action still
/// applies, as nothing blocks it yet.
enum RespawnPace {
    static let seconds: UInt32 = 5

    /// Whether reachd's parent is an init that respawns it: PID 1 of its PID namespace, not
    /// systemd (which sets `INVOCATION_ID` for every unit's processes), with reachd's standard
    /// error on a terminal, init's console, as BusyBox and sysvinit give what their lines run.
    static func applies(parent: pid_t = getppid(), standardErrorIsTerminal: Bool = isatty(STDERR_FILENO) == 1,
                        environment: (String) -> String? = { getenv($0).map { String(cString: $0) } }) -> Bool {
        standardErrorIsTerminal && isChildOfInit(parent: parent, environment: environment)
    }

    /// Whether reachd is the child of an init that is not systemd: PID 1 of its PID namespace is
    /// its parent, and systemd's `INVOCATION_ID` is not set. (Where logs go asks the same.)
    static func isChildOfInit(parent: pid_t, environment: (String) -> String?) -> Bool {
        parent == 1 && environment("INVOCATION_ID") == nil
    }

    /// Waits before a refused start ends, where `applies`; `say` tells why.
    static func beforeExiting(say: (String) -> Void) {
        guard applies() else { return }
        say("waiting \(seconds) s before exiting: init starts reachd again at once, and would do so in a loop")
        var left = seconds
        while left > 0 { left = sleep(left) }
    }
}
