import Glibc

/// `--log-target` (`log-target=` in reachd.conf).
enum LogTarget: String, CaseIterable, Sendable {
    /// Standard error where it leads somewhere, else syslog.
    case auto
    case stderr
    case syslog
}

/// Where reachd writes its messages, and why it can.
///
/// `auto` writes to standard error wherever it leads somewhere: the journal (systemd's
/// `JOURNAL_STREAM` names standard error's device and inode), a terminal, a file, a pipe, a
/// socket (a supervisor's logger). Where it leads nowhere (closed, or `/dev/null`, as D-Bus
/// activation without systemd may leave it), and where it is a terminal nobody watches (a
/// console: reachd started by D-Bus activation, or respawned by an init that is not systemd,
/// whose console its lines would scroll past), reachd writes to syslog (`/dev/log`), where a
/// syslog daemon files it. Before `--log-target`, syslog won whenever `/dev/log` existed and
/// there was no journal, and a hand-started `reachd --system 2>file` left its file empty.
///
/// A target asked for by name that cannot be used is an error: reachd does not start (exit 64)
/// rather than write where nobody looks.
enum LogDestination: Equatable {
    case standardError, syslog

    /// What standard error is, as far as the choice goes.
    enum StandardError: Equatable {
        /// The journal's stream (`JOURNAL_STREAM` is its device and inode).
        case journal
        /// A terminal, a file, a pipe or a socket.
        case somewhere
        /// A terminal, with reachd started unattended (`startedUnattended`): a console.
        case unattendedTerminal
        /// `/dev/null`.
        case null
        case closed
    }

    struct Unusable: Error, CustomStringConvertible {
        let description: String
    }

    /// The choice for `target`, pure: `syslogProblem` is why `/dev/log` cannot be used (nil: it can).
    static func choose(_ target: LogTarget, standardError: StandardError, syslogProblem: String?) throws(Unusable) -> LogDestination {
        switch target {
        case .stderr:
            guard standardError != .closed else {
                throw Unusable(description: "--log-target stderr: standard error is closed; start reachd with it open (2>FILE), or choose syslog or auto")
            }
            return .standardError
        case .syslog:
            if let syslogProblem {
                throw Unusable(description: "--log-target syslog: \(syslogProblem); start a syslog daemon (rsyslog, BusyBox syslogd), or choose stderr or auto")
            }
            return .syslog
        case .auto:
            switch standardError {
            case .journal, .somewhere: return .standardError
            case .null, .closed, .unattendedTerminal: return syslogProblem == nil ? .syslog : .standardError
            }
        }
    }

    /// The choice for this process; `standardErrorWasClosed` is `reopenClosedStandardStreams()`'s answer.
    static func current(_ target: LogTarget, standardErrorWasClosed: Bool) throws(Unusable) -> LogDestination {
        // Only looked at where it matters: auto and syslog.
        let problem = target == .stderr ? nil : syslogProblem()
        let standardError = standardErrorWasClosed ? .closed : standardErrorNow()
        return try choose(target, standardError: standardError, syslogProblem: problem)
    }

    /// Puts `/dev/null` on standard input, output and error where they are closed, first thing:
    /// otherwise the first file reachd opens (a socket, its configuration) would become its
    /// standard error, and messages meant for nobody would be written into it. True when
    /// standard error was closed.
    static func reopenClosedStandardStreams() -> Bool {
        var standardErrorWasClosed = false
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(descriptor, F_GETFD) < 0 && errno == EBADF {
            if descriptor == STDERR_FILENO { standardErrorWasClosed = true }
            // open returns the lowest free descriptor: this one, as the ones below it are open.
            let null = open("/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY)
            if null >= 0 && null != descriptor { dup2(null, descriptor); close(null) }
        }
        return standardErrorWasClosed
    }

    /// Where this process's standard error leads.
    static func standardErrorNow() -> StandardError {
        var status = stat()
        guard fstat(STDERR_FILENO, &status) == 0 else { return .closed }
        if let stream = getenv("JOURNAL_STREAM").map({ String(cString: $0) }) {
            // "DEVICE:INODE", as systemd writes it for the stream it connected.
            let parts = stream.split(separator: ":")
            if parts.count == 2, let device = UInt(parts[0]), let inode = UInt(parts[1]),
               UInt(status.st_dev) == device, UInt(status.st_ino) == inode {
                return .journal
            }
        }
        if status.st_mode & S_IFMT == S_IFCHR {
            var null = stat()
            let nullDevice = stat("/dev/null", &null) == 0 && null.st_mode & S_IFMT == S_IFCHR ? null.st_rdev : 0x103  // 1:3
            if status.st_rdev == nullDevice { return .null }
            if isatty(STDERR_FILENO) == 1, startedUnattended() { return .unattendedTerminal }
        }
        return .somewhere
    }

    /// Whether nobody started this reachd by hand: D-Bus activation (the bus sets
    /// `DBUS_STARTER_BUS_TYPE` for what it starts), or an init that is not systemd (its parent is
    /// PID 1 of its PID namespace, and systemd's `INVOCATION_ID` is not set): BusyBox's `respawn`,
    /// sysvinit's, an init script's `start-stop-daemon` without `--background`'s fork.
    static func startedUnattended(environment: (String) -> String? = { getenv($0).map { String(cString: $0) } },
                                  parent: pid_t = getppid()) -> Bool {
        environment("DBUS_STARTER_BUS_TYPE") != nil || RespawnPace.isChildOfInit(parent: parent, environment: environment)
    }

    /// Why syslog's socket cannot take a message, nil when it can: a datagram socket connected to
    /// `/dev/log` (or a stream socket, as glibc's syslog falls back to).
    static func syslogProblem(path: String = "/dev/log") -> String? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else { return "\(path) is too long a socket path" }
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            bytes.copyBytes(from: path.utf8)
            bytes[path.utf8.count] = 0
        }
        var code: Int32 = 0
        for kind in [Int32(SOCK_DGRAM.rawValue), Int32(SOCK_STREAM.rawValue)] {
            let descriptor = socket(AF_UNIX, kind | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0 else { return "cannot make a socket for \(path): \(String(cString: strerror(errno)))" }
            defer { close(descriptor) }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            if connected == 0 { return nil }
            code = errno
            guard code == EPROTOTYPE else { break }
        }
        return code == ENOENT ? "there is no \(path) (no syslog daemon listens)"
            : "cannot reach syslog at \(path): \(String(cString: strerror(code)))"
    }
}
