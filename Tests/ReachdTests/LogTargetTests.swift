import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// `--log-target auto|stderr|syslog` (issue 38): auto writes where standard error leads (the
/// journal, a file, a pipe, a terminal) and to syslog only where it leads nowhere (closed,
/// `/dev/null`) or to a console nobody reads (issue 45: reachd activated, or respawned by an
/// init that is not systemd); a target named that cannot be used stops reachd (64) and says why.
///
/// Each run is the system instance as an administrator starts it by hand (`reachd --system`,
/// with no bus to serve: it logs that it serves the system bus, then that the bus is not there,
/// and exits 1), in a mount namespace of its own whose `/dev` is a fresh tmpfs with the usual
/// devices and, where the test wants one, a `/dev/log` that is a socket this test reads: the
/// machine's `/dev/log` and syslog daemon play no part.
@Suite("where reachd's messages go (--log-target)", .timeLimit(.minutes(2)))
struct LogTargetTests {
    /// What reachd logs at info on every start, before it looks for the bus.
    static let startLine = "serving the system bus"

    enum StandardError: String, CaseIterable {
        case file, pipe, null, closed
        /// A stream socket named by `JOURNAL_STREAM`, as systemd connects a service's to journald.
        case journal
        /// `/dev/null`, with a `JOURNAL_STREAM` inherited from a parent the journal logs (it names
        /// another stream): nowhere, all the same.
        case nullWithStaleJournalStream
        /// A terminal (a pseudo-terminal `script` holds), reachd started by hand.
        case terminal
        /// A terminal, reachd started by D-Bus activation (`DBUS_STARTER_BUS_TYPE`): a console
        /// nobody reads, as dbus-daemon started from BusyBox's inittab passes on its own.
        case activatedOnConsole
    }

    @Test("auto: standard error where it leads somewhere (a file, a pipe, the journal), even with /dev/log there",
          arguments: [StandardError.file, .pipe, .journal, .terminal])
    func autoWritesWhereStandardErrorLeads(_ standardError: StandardError) async throws {
        let run = try await LoggedRun(standardError: standardError, syslog: true, ["--log-target", "auto"])
        #expect(run.status == 1, "\(run.transcript)")
        // Before: syslog, whenever /dev/log existed and there was no journal; the file stayed empty.
        #expect(run.standardError.contains(Self.startLine), "\(run.transcript)")
        #expect(!run.syslog.contains(Self.startLine), "\(run.transcript)")
    }

    @Test("auto is the default: a hand-started reachd --system 2>FILE writes its file, not syslog")
    func autoIsTheDefault() async throws {
        let run = try await LoggedRun(standardError: .file, syslog: true, [])
        #expect(run.standardError.contains(Self.startLine) && !run.syslog.contains(Self.startLine), "\(run.transcript)")
    }

    @Test("auto: syslog where standard error leads nowhere (/dev/null, closed), whatever JOURNAL_STREAM says",
          arguments: [StandardError.null, .closed, .nullWithStaleJournalStream])
    func autoWritesToSyslogWhereStandardErrorLeadsNowhere(_ standardError: StandardError) async throws {
        let run = try await LoggedRun(standardError: standardError, syslog: true, [])
        #expect(run.status == 1, "\(run.transcript)")
        #expect(run.syslog.contains("reachd[") && run.syslog.contains("info: \(Self.startLine)"), "\(run.transcript)")
        // Facility daemon (3) for the system instance: priority 3 × 8 + 6 (info).
        #expect(run.syslog.contains("<30>"), "\(run.transcript)")
    }

    @Test("auto: an activated reachd whose standard error is a console writes to syslog, where an administrator reads it")
    func autoWritesToSyslogFromAConsoleNobodyReads() async throws {
        let run = try await LoggedRun(standardError: .activatedOnConsole, syslog: true, [])
        #expect(run.status == 1, "\(run.transcript)")
        #expect(run.syslog.contains("info: \(Self.startLine)"), "\(run.transcript)")
        #expect(!run.standardError.contains(Self.startLine), "\(run.transcript)")
    }

    @Test("auto with standard error nowhere and no /dev/log: reachd still starts (nothing better to write to)")
    func autoWithoutSyslogStillStarts() async throws {
        let run = try await LoggedRun(standardError: .null, syslog: false, [])
        #expect(run.status == 1, "exits as it does without a bus, not 64: \(run.transcript)")
    }

    @Test("stderr: standard error only, even where it is /dev/null and /dev/log is there")
    func stderrNeverWritesToSyslog() async throws {
        let null = try await LoggedRun(standardError: .null, syslog: true, ["--log-target", "stderr"])
        #expect(null.status == 1 && null.syslog.isEmpty, "\(null.transcript)")
        let file = try await LoggedRun(standardError: .file, syslog: true, ["--log-target=stderr"])
        #expect(file.standardError.contains(Self.startLine) && file.syslog.isEmpty, "\(file.transcript)")
    }

    @Test("stderr with standard error closed is an error (64), never a quiet fall to syslog")
    func stderrClosedIsAnError() async throws {
        let run = try await LoggedRun(standardError: .closed, syslog: true, ["--log-target", "stderr"])
        #expect(run.status == 64 && run.syslog.isEmpty, "\(run.transcript)")
    }

    @Test("syslog: syslog only, even with standard error a file")
    func syslogWritesToSyslogOnly() async throws {
        let run = try await LoggedRun(standardError: .file, syslog: true, ["--log-target", "syslog"])
        #expect(run.status == 1, "\(run.transcript)")
        #expect(run.syslog.contains("info: \(Self.startLine)") && !run.standardError.contains(Self.startLine), "\(run.transcript)")
    }

    @Test("syslog without a /dev/log is an error (64) that says so, before reachd touches the bus")
    func syslogWithoutSocketIsAnError() async throws {
        let run = try await LoggedRun(standardError: .file, syslog: false, ["--log-target", "syslog"])
        #expect(run.status == 64, "\(run.transcript)")
        #expect(run.standardError.contains("reachd: --log-target syslog: there is no /dev/log (no syslog daemon listens); "
                                           + "start a syslog daemon"), "\(run.transcript)")
        #expect(!run.standardError.contains(Self.startLine), "\(run.transcript)")
    }

    @Test("log-target= in [reachd] of reachd.conf chooses as the option does; the command line wins")
    func fileChoosesTheTarget() async throws {
        let folder = try TemporaryFolder()
        let file = folder.path + "/reachd.conf"
        try "[reachd]\nlog-target=syslog\n".write(toFile: file, atomically: true, encoding: .utf8)
        // A session's reachd, whose file may live anywhere (the system instance's must be root's).
        let fromFile = try await LoggedRun(standardError: .file, syslog: true, ["--config", file], system: false)
        #expect(fromFile.syslog.contains("info: serving the session bus") && !fromFile.standardError.contains("serving"),
                "\(fromFile.transcript)")
        // A session's reachd logs as facility user (1): 1 × 8 + 6.
        #expect(fromFile.syslog.contains("<14>"), "\(fromFile.transcript)")
        let overridden = try await LoggedRun(standardError: .file, syslog: true, ["--config", file, "--log-target", "stderr"], system: false)
        #expect(overridden.standardError.contains("serving the session bus") && overridden.syslog.isEmpty, "\(overridden.transcript)")
    }

    @Test("a value that names no target is refused, on the command line and in the file, with the three it may be")
    func invalidTargetsAreRefused() async throws {
        let option = try await runTool(ReachdProcess.executable, ["--log-target", "journal"])
        #expect(option.status == 64 && option.standardError.contains("reachd: --log-target is auto, stderr or syslog, not 'journal'"),
                "\(option.transcript)")
        let empty = try await runTool(ReachdProcess.executable, ["--log-target="])
        #expect(empty.status == 64 && empty.standardError.contains("--log-target is auto, stderr or syslog, not ''"), "\(empty.transcript)")
        let folder = try TemporaryFolder()
        let file = folder.path + "/reachd.conf"
        try "[reachd]\nlog-target=Syslog\n".write(toFile: file, atomically: true, encoding: .utf8)
        let check = try await runTool(ReachdProcess.executable, ["--check-config", "--config", file])
        #expect(check.status == 64 && check.standardError.contains("\(file):2: error: log-target is auto, stderr or syslog, not 'Syslog'"),
                "\(check.transcript)")
    }
}

/// A folder under the temporary directory (or `parent`), removed with the value.
final class TemporaryFolder {
    let path: String

    /// A folder that root owns and only root can write, as every folder above it (`/run` is
    /// root's 0755, where `/tmp` is writable by everyone): where the system instance accepts a
    /// configuration file.
    static func rootOnly() throws -> TemporaryFolder {
        guard geteuid() == 0 else { throw TestFailure("a folder only root can write needs root: run the tests as root") }
        return try TemporaryFolder(parent: "/run", mode: 0o755)
    }

    init(parent: String = FileManager.default.temporaryDirectory.path, mode: mode_t = 0o700) throws {
        var template = Array("\(parent)/reachd-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp failed: \(String(cString: strerror(errno)))") }
        path = String(cString: made)
        chmod(path, mode)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// reachd run once as `LogTargetTests` describes: its exit status, what reached its standard
/// error (where that is a file, a pipe or the journal's socket) and what reached the syslog socket.
private struct LoggedRun {
    let status: Int32
    let standardError: String
    let syslog: String
    let launcherErrors: String

    var transcript: String {
        "exit status \(status)\n--- reachd's standard error\n\(standardError)--- syslog\n\(syslog)--- launcher\n\(launcherErrors)"
    }

    /// `system`: `reachd --system` (else a session's reachd), with no bus to serve either way.
    init(standardError: LogTargetTests.StandardError, syslog withSyslog: Bool, _ arguments: [String], system: Bool = true) async throws {
        guard geteuid() == 0 else { throw TestFailure("a private /dev needs root (a mount namespace): run the tests as root") }
        let folder = try TemporaryFolder()
        let socket = folder.path + "/log", output = folder.path + "/stderr"
        // The syslog daemon: one datagram per message, each on a line of its own.
        let receiver = try ChildProcess("/usr/bin/python3", ["-c", """
            import socket, sys
            receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            receiver.bind(sys.argv[1])
            print("ready", flush=True)
            while True:
                print(receiver.recv(65536).decode(errors="replace"), flush=True)
            """, socket])
        defer { receiver.stop(SIGKILL); receiver.removeOutput() }
        try await eventually(timeout: .seconds(20), "the syslog stand-in listens: \(receiver.standardError)") {
            receiver.standardOutput.contains("ready")
        }
        // In a mount namespace: /dev a fresh tmpfs with the usual devices (and /dev/log our socket
        // where asked), then reachd with its standard error as the case says.
        let script = """
            set -e
            folder=$1 log=$2 mode=$3; shift 3
            mkdir "$folder/dev"; mount --rbind /dev "$folder/dev"; mount -t tmpfs tmpfs /dev
            for name in null zero full random urandom; do touch "/dev/$name"; mount --bind "$folder/dev/$name" "/dev/$name"; done
            # Pseudo-terminals, for script(1)'s terminal cases.
            mkdir /dev/pts; mount --bind "$folder/dev/pts" /dev/pts; ln -s pts/ptmx /dev/ptmx
            if [ "$log" = yes ]; then ln -s "$folder/log" /dev/log; fi
            set +e
            case $mode in
            file) exec "$@" 2>"$folder/stderr" ;;
            pipe) "$@" 2>&1 >/dev/null | cat >"$folder/stderr"; exit "${PIPESTATUS[0]}" ;;
            null) exec "$@" 2>/dev/null ;;
            closed) exec "$@" 2>&- ;;
            nullWithStaleJournalStream) JOURNAL_STREAM=$(stat -c %d:%i "$folder") exec "$@" 2>/dev/null ;;
            terminal) exec script -qefc "$*" /dev/null </dev/null >"$folder/stderr" ;;
            activatedOnConsole) DBUS_STARTER_BUS_TYPE=system exec script -qefc "$*" /dev/null </dev/null >"$folder/stderr" ;;
            journal) exec python3 -c '
            import os, socket, subprocess, sys
            journal, end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            status = os.fstat(end.fileno())
            env = dict(os.environ, JOURNAL_STREAM="%d:%d" % (status.st_dev, status.st_ino))
            child = subprocess.Popen(sys.argv[2:], stderr=end.fileno(), env=env)
            end.close()
            with open(sys.argv[1], "wb") as out:
                while True:
                    data = journal.recv(65536)
                    if not data: break
                    out.write(data)
            sys.exit(child.wait())
            ' "$folder/stderr" "$@" ;;
            esac
            """
        let reachd = [ReachdProcess.executable] + (system ? ["--system"] : [])
            + (arguments.contains("--config") ? [] : ["--no-config"]) + arguments
        let absent = absentSystemBusAddress()
        let child = try ChildProcess("/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/bash", "-c", script, "bash",
                                                         folder.path, withSyslog ? "yes" : "no", standardError.rawValue] + reachd,
                                     environment: ["DBUS_SYSTEM_BUS_ADDRESS": absent, "DBUS_SESSION_BUS_ADDRESS": absent],
                                     unsetting: ["JOURNAL_STREAM"])
        defer { child.removeOutput() }
        // A quick exit either way: no bus, or a target refused.
        status = try await child.exit(timeout: .seconds(30))
        launcherErrors = child.standardError
        self.standardError = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        // Everything reachd sent is queued at the socket before it exited: a marker sent now
        // arrives after it, so what the stand-in printed before the marker is all of it.
        try await runToolChecked("/usr/bin/python3", ["-c", """
            import socket, sys
            sender = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            sender.sendto(b"end-of-test", sys.argv[1])
            """, socket])
        try await eventually(timeout: .seconds(20), "the marker arrives: \(receiver.standardOutput)") {
            receiver.standardOutput.contains("end-of-test")
        }
        let received = receiver.standardOutput
        syslog = String(received[received.index(received.startIndex, offsetBy: "ready\n".count)..<received.range(of: "end-of-test")!.lowerBound])
    }
}
