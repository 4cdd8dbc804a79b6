import Glibc
import Logging

/// reachd's messages to syslog (`/dev/log`), facility daemon, tagged `reachd[PID]`: where the
/// system instance writes them on a machine without systemd's journal. There D-Bus activation
/// leaves the instance's standard error on `/dev/null`, and a failure to start would say nothing
/// anywhere; a syslog daemon (rsyslog, busybox syslogd) files them in `/var/log/syslog` or
/// `daemon.log`. `LogDestination` decides when.
struct SyslogLogHandler: LogHandler {
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    /// openlog keeps the pointer it is given: one that lives as long as the process.
    private static let identity: Void = {
        openlog(strdup("reachd"), LOG_PID | LOG_NDELAY, LOG_DAEMON)
    }()

    init(level: Logger.Level) {
        _ = Self.identity
        logLevel = level
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let priority: Int32 = switch event.level {
        case .trace, .debug: LOG_DEBUG
        case .info: LOG_INFO
        case .notice: LOG_NOTICE
        case .warning: LOG_WARNING
        case .error: LOG_ERR
        case .critical: LOG_CRIT
        }
        // The level in words too: a syslog daemon's file shows no priority by default.
        Self.write("\(event.level): \(event.message)", priority: priority)
    }

    /// One message, outside the logging system (the configuration's errors, before it starts).
    static func write(_ text: String, priority: Int32) {
        _ = identity
        text.withCString { text in
            withVaList([text]) { vsyslog(priority, "%s", $0) }
        }
    }
}

/// Where reachd writes its messages: standard error (a terminal, systemd's journal, or the
/// session bus that activated it pass it on), except for the system instance started where
/// nothing reads its standard error (no `JOURNAL_STREAM`, not a terminal) and a syslog socket
/// exists: there, syslog. reachd(8), LOGGING, and docs/administrators/troubleshooting.md say so.
enum LogDestination: Equatable {
    case standardError, syslog

    static func choose(system: Bool, journalStream: Bool, standardErrorIsTerminal: Bool, syslogSocketExists: Bool) -> LogDestination {
        system && !journalStream && !standardErrorIsTerminal && syslogSocketExists ? .syslog : .standardError
    }

    /// The choice for this process.
    static func current(system: Bool) -> LogDestination {
        choose(system: system, journalStream: getenv("JOURNAL_STREAM") != nil,
               standardErrorIsTerminal: isatty(STDERR_FILENO) == 1, syslogSocketExists: access("/dev/log", F_OK) == 0)
    }
}
