import Glibc
import Logging

/// reachd's messages to syslog (`/dev/log`), facility daemon, tagged `reachd[PID]`: where the
/// system instance writes them on a machine without systemd's journal. There D-Bus activation
/// leaves the instance's standard error on `/dev/null`, and a failure to start would say nothing
/// anywhere; a syslog daemon (rsyslog, busybox syslogd) files them in `/var/log/syslog` or
/// `daemon.log`. `LogDestination` decides when (`--log-target`).
struct SyslogLogHandler: LogHandler {
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    /// Names reachd and its facility to syslog: `daemon` for the system instance, `user` for a
    /// session's. Called once, before any message, while reachd has one thread.
    static func open(system: Bool) {
        // openlog keeps the pointer it is given: one that lives as long as the process.
        openlog(strdup("reachd"), LOG_PID | LOG_NDELAY, system ? LOG_DAEMON : LOG_USER)
    }

    init(level: Logger.Level) {
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
        text.withCString { text in
            withVaList([text]) { vsyslog(priority, "%s", $0) }
        }
    }
}
