import Glibc
import ReachdKit

/// Where a reachd's messages go, for the sentences that send a person to its log: each instance
/// has its own (`journalctl --user -u reachd` is the session one's, never the system one's), and
/// without systemd the system instance writes to syslog (reachd(8), LOGGING).
enum ReachdLog {
    /// The log of reachd on `provider`'s bus, as a command to run or a place to look.
    static func of(_ provider: ReachabilityProvider) -> String {
        let systemd = access("/run/systemd/system", F_OK) == 0
        switch provider {
        case .system where systemd:
            return "'journalctl -u reachd'"
        case .system where access("/dev/log", F_OK) == 0:
            return "the system log (syslog, tag reachd: \(syslogFiles()))"
        case .system:
            return "nowhere on this machine (no journal, no syslog at /dev/log): "
                + "'runuser -u reachd -- reachd --system' shows why it stops"
        case .session where systemd:
            return "'journalctl --user -u reachd'"
        case .session:
            return "the session bus's standard error (dbus-daemon passes reachd's on)"
        case .inProcess:
            return "this command's standard error"
        }
    }

    /// Where this machine's syslog daemon files reachd's lines (facility daemon): the files that
    /// are there (rsyslog's /var/log/syslog and daemon.log, BusyBox syslogd's /var/log/messages),
    /// else its memory buffer.
    static func syslogFiles(exists: (String) -> Bool = { access($0, F_OK) == 0 }) -> String {
        let files = ["/var/log/syslog", "/var/log/daemon.log", "/var/log/messages"].filter(exists)
        return files.isEmpty ? "'logread', where syslogd keeps its log in memory" : files.joined(separator: " or ")
    }

    /// `reachd --check-config`, as the instance on `provider`'s bus would read its file.
    static func checkConfig(_ provider: ReachabilityProvider) -> String {
        provider == .system ? "'reachd --check-config --system' (as root: it checks as user reachd)" : "'reachd --check-config'"
    }
}
