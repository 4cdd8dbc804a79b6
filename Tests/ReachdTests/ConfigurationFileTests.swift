import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// reachd.conf, as an administrator uses it for a reachd that D-Bus or systemd starts:
/// `$XDG_CONFIG_HOME/reachd/reachd.conf`, else `reachd/reachd.conf` in `$XDG_CONFIG_DIRS`
/// (`/etc/xdg`); every option has a key that means what the option means; the command line
/// wins; a key reachd does not know is a warning; a broken file stops reachd with 64 and the
/// file and line. Each test has its own XDG directories, so the machine's files play no part.
@Suite("reachd's configuration file", .timeLimit(.minutes(1)))
struct ConfigurationFileTests {
    /// Each option that has a key: its key, and a value other than the default.
    static let keys: [(option: String, section: String, key: String, value: String)] = [
        ("--system-bus-address", "reachd", "system-bus-address", "unix:path=/nonexistent-system-bus"),
        ("--settle-ms", "reachd", "settle-ms", "250"),
        ("--max-monitors-per-client", "reachd", "max-monitors-per-client", "3"),
        ("--max-monitors", "reachd", "max-monitors", "7"),
        ("--log-level", "reachd", "log-level", "debug"),
        ("--log-target", "reachd", "log-target", "stderr"),
        ("--probe-ipv4", "kernel", "probe-ipv4", "198.51.100.7"),
        ("--probe-ipv6", "kernel", "probe-ipv6", "3fff::7"),
        ("--route-events", "kernel", "route-events", "all"),
        ("--override-delay-ms", "networkmanager", "override-delay-ms", "40"),
        ("--no-override", "networkmanager", "override", "false"),
        ("--connectivity-uri", "connectivity", "uri", "http://check.example/online.txt"),
        ("--connectivity-response", "connectivity", "response", "all good"),
        ("--connectivity-interval", "connectivity", "interval", "0"),
        ("--connectivity-timeout", "connectivity", "timeout", "3"),
    ]

    /// Options that have no key: what they do makes no sense in a file.
    static let optionsWithoutKey: Set<String> = ["--system", "--replace", "--config", "--no-config", "--check-config", "--help", "--version"]

    @Test("every option has a key, and the key means what the option means")
    func everyOptionHasAKey() async throws {
        let help = try await runToolChecked(ReachdProcess.executable, ["--help"])
        let helpOptions = Set(help.standardOutput.split(whereSeparator: { " \n[]|,".contains($0) })
            .filter { $0.hasPrefix("--") }.map(String.init))
        #expect(helpOptions.subtracting(Self.optionsWithoutKey) == Set(Self.keys.map(\.option)),
                "each option --help lists has a key here, or is one that has none")

        let directories = try XDGDirectories()
        try directories.writeUserFile(Self.keys.map { "[\($0.section)]\n\($0.key)=\($0.value)\n" }.joined())
        let fromFile = try await directories.effectiveOptions()
        let commandLine = Self.keys.flatMap { $0.option == "--no-override" ? [$0.option] : [$0.option, $0.value] }
        let fromCommandLine = try await XDGDirectories().effectiveOptions(commandLine)
        #expect(fromFile == fromCommandLine)
        for (_, section, key, value) in Self.keys {
            let written = value.contains(" ") ? "\"\(value)\"" : value
            #expect(fromFile.contains("[\(section)]") && fromFile.contains(" \(key)=\(written)"), "\(key): \(fromFile)")
        }
    }

    @Test("the command line wins over the file, key by key; an empty --connectivity-uri turns the file's check off")
    func commandLineWins() async throws {
        let directories = try XDGDirectories()
        try directories.writeUserFile("""
            [reachd]
            log-level=debug
            settle-ms=250
            max-monitors=7
            [connectivity]
            uri=http://check.example/
            """)
        let options = try await directories.effectiveOptions(["--settle-ms", "9"])
        #expect(options.contains(" settle-ms=9 ") && options.contains(" max-monitors=7 ")
                && options.contains(" uri=http://check.example/ "), "\(options)")
        let off = try await directories.effectiveOptions(["--connectivity-uri="])
        #expect(off.contains(" uri=\"\" "), "\(off)")
    }

    @Test("NetworkManager's [connectivity] lines can be copied whole: enabled=false turns the check off")
    func networkManagersConnectivitySection() async throws {
        let directories = try XDGDirectories()
        try directories.writeUserFile("""
            [reachd]
            log-level=debug
            [connectivity]
            enabled=true
            uri=http://fedoraproject.org/static/hotspot.txt
            response=OK
            interval=300
            """)
        let result = try await directories.runReachd()
        #expect(!result.standardError.contains("warning"), "\(result.transcript)")
        #expect(result.standardError.contains(" uri=http://fedoraproject.org/static/hotspot.txt response=OK interval=300 "),
                "\(result.transcript)")
        try directories.writeUserFile("[reachd]\nlog-level=debug\n[connectivity]\nuri=http://example.org/\nenabled=false\n")
        let off = try await directories.effectiveOptions()
        #expect(off.contains(" uri=\"\" "), "\(off)")
    }

    @Test("an unknown key or section is a warning naming the file and line, once each, and reachd serves")
    func unknownKeysAreWarnings() async throws {
        let directories = try XDGDirectories()
        try directories.writeUserFile("""
            [reachd]
            settle-ms=0
            colour=blue
            [kernel]
            settle-ms=5
            [future]
            a=1
            b=2
            """)
        let file = directories.userFile
        try await withPrivateBus { session in
            try await withReachd(session: session, systemBus: absentSystemBusAddress(), arguments: ["--config", file]) { reachd in
                let status = try await session.getStatus()
                #expect(status.succeeded, "\(status.transcript)")
                let warnings = reachd.standardError.split(separator: "\n").filter { $0.contains(" warning ") && $0.contains(file) }
                #expect(warnings.count == 3, "\(reachd.standardError)")
                #expect(warnings.contains { $0.contains("\(file):3: unknown key 'colour' in [reachd]") }, "\(warnings)")
                #expect(warnings.contains { $0.contains("\(file):5: unknown key 'settle-ms' in [kernel]; it belongs in [reachd]") },
                        "\(warnings)")
                #expect(warnings.contains { $0.contains("\(file):6: unknown section [future]") }, "\(warnings)")
            }
        }
    }

    @Test("a malformed file stops reachd with 64 (EX_USAGE), naming the file and line, before it touches the bus",
          arguments: [
            ("[reachd]\nsettle-ms 500\n", 2, "not a '[section]', 'key=value' or '# comment' line"),
            ("# settings\nsettle-ms=500\n", 2, "'settle-ms' comes before any '[section]' line"),
            ("[reachd\n", 1, "a section header is '[name]', not '[reachd'"),
            ("[reachd]\n\nsettle-ms=soon\n", 3, "settle-ms needs a whole number of milliseconds from 0 to 31536000000 (a year), not 'soon'"),
            ("[reachd]\nlog-level=loud\n", 2, "log-level is one of"),
            ("[kernel]\nprobe-ipv4=0.0.0.0\n", 2, "probe-ipv4 cannot be 0.0.0.0: the kernel answers it as a local address"),
            ("[kernel]\nroute-events=some\n", 2, "route-events is all or filtered, not 'some'"),
            ("[networkmanager]\noverride=maybe\n", 2, "override is true or false"),
            ("[connectivity]\nuri=https://example.org/\n", 2, "uri needs an http:// URI"),
            ("[connectivity]\ntimeout=0\n", 2, "timeout needs a whole number of seconds from 1 to 31536000 (a year), not '0'"),
            ("[connectivity]\nuri=http://example.org/\ninterval=10000000000000000\n", 3,
             "interval needs a whole number of seconds from 0 to 31536000 (a year), not '10000000000000000'"),
            ("[connectivity]\ntimeout=9223372036854775807\n", 2, "timeout needs a whole number of seconds from 1 to 31536000"),
            ("[reachd]\nmax-monitors=99999999999999999999\n", 2, "max-monitors needs a whole number from 1 to 1000000"),
            ("[connectivity]\nenabled=sometimes\n", 2, "enabled is true or false"),
            // A comment after a value is part of it: the error says so, not something about xn-- names.
            ("[connectivity]\nuri=http://example.org/ # my check\n", 2,
             "uri cannot contain spaces (write one as %20), not 'http://example.org/ # my check'; "
                + "'# my check' looks like a comment: comments go on a line of their own (a value is the rest of its line)"),
            ("[reachd]\nsettle-ms=500 ; half a second\n", 2,
             "settle-ms needs a whole number of milliseconds from 0 to 31536000000 (a year), not '500 ; half a second'; "
                + "'; half a second' looks like a comment: comments go on a line of their own"),
          ] as [(String, Int, String)])
    func malformedFileExits64(text: String, line: Int, says: String) async throws {
        let directories = try XDGDirectories()
        try directories.writeUserFile(text)
        let result = try await directories.runReachd()
        #expect(result.status == 64, "\(result.transcript)")
        #expect(result.standardError.contains("\(directories.userFile):\(line): \(says)"), "\(result.transcript)")
    }

    /// A file with every kind of problem: a key before any section, a bad value, an unknown key,
    /// a misspelt section, a broken header (whose key is skipped), a key slip, another bad value.
    static let troubledFile = """
        early=1
        [reachd]
        settle-ms=soon
        colour=blue
        [conectivity]
        uri=http://example.org/
        interval=60
        [kernel
        probe-ipv4=1.2.3.4
        [connectivity]
        intervall=5
        timeout=0

        """

    @Test("--check-config reports every problem of the file as FILE:LINE, in line order, and exits 64 with errors, without touching the bus")
    func checkConfigReportsEveryProblem() async throws {
        let directories = try XDGDirectories()
        try directories.writeUserFile(Self.troubledFile)
        let file = directories.userFile
        let result = try await directories.runReachd(["--check-config"])
        #expect(result.status == 64, "\(result.transcript)")
        let lines = result.standardError.split(separator: "\n").map(String.init)
        #expect(lines == [
            "\(file):1: error: 'early' comes before any '[section]' line",
            "\(file):3: error: settle-ms needs a whole number of milliseconds from 0 to 31536000000 (a year), not 'soon'",
            "\(file):4: warning: unknown key 'colour' in [reachd]; ignored",
            "\(file):5: warning: unknown section [conectivity]; did you mean [connectivity]? Its keys are ignored: uri, interval; "
                + "so reachd's own connectivity check is off",
            "\(file):8: error: a section header is '[name]', not '[kernel'",
            "\(file):11: warning: unknown key 'intervall' in [connectivity] (did you mean 'interval'?); ignored",
            "\(file):12: error: timeout needs a whole number of seconds from 1 to 31536000 (a year), not '0'",
            "reachd: \(file): 4 errors, 3 warnings; reachd would not start (exit status 64)",
        ], "\(result.transcript)")
        #expect(!result.standardError.contains("session bus"), "\(result.transcript)")

        // reachd itself stops on the same file with every error, not only the first.
        let started = try await directories.runReachd()
        #expect(started.status == 64, "\(started.transcript)")
        for line in [1, 3, 8, 12] {
            #expect(started.standardError.contains("reachd: \(file):\(line): "), "line \(line): \(started.transcript)")
        }
        #expect(started.standardError.contains("reachd: \(file) has 4 errors; 'reachd --check-config' lists every problem"),
                "\(started.transcript)")
    }

    @Test("--check-config exits 0 for a clean file or none (a --config file that is missing included), 1 for warnings only, 64 for errors",
          arguments: [
            ("[reachd]\nsettle-ms=5\n", 0, "reachd: FILE: no problems"),
            (nil, 0, "reachd: no configuration file: none of "),
            ("[reachd]\ncolour=blue\n[future]\na=1\n", 1, "reachd: FILE: 2 warnings; reachd would start, and ignore what they name"),
            ("[reachd]\nsettle-ms=1e16\n", 64, "FILE:2: error: settle-ms needs a whole number of milliseconds"),
          ] as [(String?, Int32, String)])
    func checkConfigExitStatus(text: String?, status: Int32, says: String) async throws {
        let directories = try XDGDirectories()
        if let text { try directories.writeUserFile(text) }
        let result = try await directories.runReachd(["--check-config"])
        #expect(result.status == status, "\(result.transcript)")
        #expect(result.standardError.contains(says.replacingOccurrences(of: "FILE", with: directories.userFile)), "\(result.transcript)")
        // One rule: a missing file is no error, named by --config too (a first boot's empty data partition).
        let missing = try await directories.runReachd(["--check-config", "--config", directories.root + "/absent.conf"])
        #expect(missing.status == 0 && missing.standardError.contains("absent.conf does not exist; reachd starts with its defaults"),
                "\(missing.transcript)")
    }

    @Test("--check-config --system as root checks the file as user reachd, who cannot read a file left 0600 root")
    func systemCheckReadsAsTheServiceUser() async throws {
        guard geteuid() == 0 else { throw TestFailure("checking as user reachd needs root: run the tests as root (sudo -E Scripts/test)") }
        // The copy and the file in a folder user reachd can enter, whatever the clone's own mode,
        // and that only root can write, as the system instance asks of its file's folders.
        let temporary = try TemporaryFolder.rootOnly()
        let folder = temporary.path
        let reachd = folder + "/reachd", file = folder + "/reachd.conf"
        // Copied by cp: a copy written by this process could be held open by a child another test
        // spawns meanwhile, and running it would fail with ETXTBSY.
        try await runToolChecked("/bin/cp", [ReachdProcess.executable, reachd])
        try await runToolChecked("/bin/chmod", ["755", reachd])
        try "[reachd]\nsettle-ms=5\n".write(toFile: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        // The user as the package makes it, before the check: a system-instance test beside this
        // one may make it at any moment, and the check must see the same machine as this test.
        try await SystemInstance.ensureUsers()
        let check = try await runTool(reachd, ["--check-config", "--system", "--config", file])
        // Before: "no problems", 0, while reachd --system would refuse to start.
        #expect(check.status == 64, "\(check.transcript)")
        #expect(check.standardError.contains("reachd: checking as user reachd, as the system instance reads its file"), "\(check.transcript)")
        #expect(check.standardError.contains("\(file): error: cannot open it: Permission denied"), "\(check.transcript)")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        let readable = try await runTool(reachd, ["--check-config", "--system", "--config", file])
        #expect(readable.status == 0 && readable.standardError.contains("\(file): no problems"), "\(readable.transcript)")
        // A machine without the user (a copy of reachd, no package): the check says the instance
        // could not run, rather than "no problems" alone. Its /etc/passwd lacks the user in a
        // mount namespace of the check's own; the machine's file is untouched.
        let passwd = folder + "/passwd"
        let accounts = try String(contentsOfFile: "/etc/passwd", encoding: .utf8)
        try accounts.split(separator: "\n").filter { !$0.hasPrefix("reachd:") }.map { $0 + "\n" }.joined()
            .write(toFile: passwd, atomically: true, encoding: .utf8)
        let withoutUser = try await runTool("/usr/bin/unshare", [
            "--mount", "--propagation", "private", "/bin/sh", "-c",
            "mount --bind \"$1\" /etc/passwd && exec \"$2\" --check-config --system --config \"$3\"", "sh", passwd, reachd, file])
        #expect(withoutUser.standardError.contains("user reachd does not exist, so the system instance could not run"),
                "\(withoutUser.transcript)")
    }

    @Test("the system instance started with its standard error on /dev/null tells syslog why it stops (D-Bus activation without systemd)")
    func systemInstanceWithoutAJournalLogsToSyslog() async throws {
        guard geteuid() == 0 else { throw TestFailure("a private /dev/log needs root (a mount namespace): run the tests as root") }
        let temporary = try TemporaryFolder.rootOnly()
        let folder = temporary.path
        let socket = folder + "/log", file = folder + "/reachd.conf"
        try "[reachd]\nsettle-ms=soon\n".write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o644)
        // A syslog daemon: one datagram per message, printed as it comes.
        let syslog = try ChildProcess("/usr/bin/python3", ["-c", """
            import socket, sys
            receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            receiver.bind(sys.argv[1])
            print("ready", flush=True)
            while True:
                print(receiver.recv(65536).decode(errors="replace"), flush=True)
            """, socket])
        defer { syslog.stop(SIGKILL); syslog.removeOutput() }
        try await eventually(timeout: .seconds(20), "the receiver listens: \(syslog.standardError)") { syslog.standardOutput.contains("ready") }
        // In a mount namespace of its own, /dev is a fresh tmpfs holding the usual devices and a
        // /dev/log that is our socket; the machine's /dev is untouched.
        let setUp = """
            set -e
            mkdir "$1/dev"; mount --rbind /dev "$1/dev"; mount -t tmpfs tmpfs /dev
            for name in null zero full random urandom; do touch "/dev/$name"; mount --bind "$1/dev/$name" "/dev/$name"; done
            ln -s "$1/log" /dev/log
            shift; exec "$@" 2>/dev/null
            """
        let child = try ChildProcess("/usr/bin/unshare", ["--mount", "--propagation", "private", "/bin/sh", "-c", setUp, "sh", folder,
                                                         ReachdProcess.executable, "--system", "--config", file],
                                     unsetting: ["JOURNAL_STREAM"])
        defer { child.removeOutput() }
        let reachd = ToolResult(status: try await child.exit(timeout: .seconds(30)), standardOutput: child.standardOutput,
                                standardError: child.standardError)
        #expect(reachd.status == 64, "\(reachd.transcript)")
        try await eventually(timeout: .seconds(10), "syslog has why it stopped:\n\(syslog.standardOutput)") {
            syslog.standardOutput.contains("reachd[") && syslog.standardOutput.contains("error: \(file):2: settle-ms needs a whole number")
        }
    }

    @Test("a key set twice in one section is a warning naming both lines; the later counts")
    func repeatedKeyIsAWarningNamingBothLines() async throws {
        let directories = try XDGDirectories()
        try directories.writeUserFile("[reachd]\nsettle-ms=5\n[kernel]\nroute-events=all\n[reachd]\nsettle-ms=250\n")
        let result = try await directories.runReachd(["--check-config"])
        #expect(result.status == 1, "\(result.transcript)")
        #expect(result.standardError.contains("\(directories.userFile):6: warning: [reachd] settle-ms is also set on line 2; "
                                              + "this line (6) counts, line 2 is ignored"), "\(result.transcript)")
        let options = try await directories.effectiveOptions(["--log-level", "debug"])
        #expect(options.contains(" settle-ms=250 "), "\(options)")
    }

    @Test("a UTF-8 byte order mark (Windows editors write one) is accepted: the first section is read")
    func byteOrderMarkIsAccepted() async throws {
        let directories = try XDGDirectories()
        try directories.writeUserFile("\u{FEFF}[reachd]\nsettle-ms=250\n")
        let result = try await directories.runReachd(["--check-config"])
        #expect(result.status == 0 && result.standardError.contains("no problems"), "\(result.transcript)")
    }

    @Test("a misspelt [connectivity] is loud at start: the warning names the section meant and that the check is off")
    func misspeltSectionIsLoud() async throws {
        let directories = try XDGDirectories()
        try directories.writeUserFile("[reachd]\nlog-level=debug\n[Conectivity]\nuri=http://example.org/\n")
        let result = try await directories.runReachd()
        let warning = result.standardError.split(separator: "\n").first { $0.contains(" warning ") && $0.contains("[Conectivity]") }
        #expect(warning?.hasSuffix("\(directories.userFile):3: unknown section [Conectivity]; did you mean [connectivity]? "
                                   + "Its keys are ignored: uri; so reachd's own connectivity check is off") == true,
                "\(result.transcript)")
        #expect(result.standardError.contains(" uri=\"\" "), "the check is indeed off: \(result.transcript)")
    }

    @Test("a value taken with a comment after it is a warning that says comments go on their own line")
    func commentAfterATakenValueIsAWarning() async throws {
        let directories = try XDGDirectories()
        try directories.writeUserFile("[reachd]\nlog-level=debug\n[connectivity]\nresponse=OK # what fedora answers\n")
        let result = try await directories.runReachd(["--check-config"])
        #expect(result.status == 1, "\(result.transcript)")
        #expect(result.standardError.contains("\(directories.userFile):4: warning: response is 'OK # what fedora answers', "
                                              + "'# what fedora answers' included; if that is a comment, comments go on a line of their own"),
                "\(result.transcript)")
        #expect(!result.standardError.contains("xn--"), "\(result.transcript)")
    }

    @Test("--config names the file to read instead (where it is not there, none: no error); --no-config reads none")
    func configAndNoConfig() async throws {
        let directories = try XDGDirectories()
        try directories.writeUserFile("[reachd]\nlog-level=debug\nsettle-ms=250\n")
        let other = directories.root + "/other.conf"
        try "[reachd]\nlog-level=debug\nsettle-ms=31\n".write(toFile: other, atomically: true, encoding: .utf8)
        let chosen = try await directories.runReachd(["--config", other])
        #expect(chosen.standardError.contains("configuration file: \(other)") && chosen.standardError.contains(" settle-ms=31 "),
                "\(chosen.transcript)")
        let none = try await directories.effectiveOptions(["--no-config", "--log-level", "debug"])
        #expect(none.contains(" settle-ms=0 "), "\(none)")
        // Missing, as on an image's first boot: reachd serves with its defaults, and says so at notice.
        let missing = try await directories.effectiveOptions(["--config", directories.root + "/absent.conf", "--log-level", "debug"])
        #expect(missing.contains(" settle-ms=0 "), "\(missing)")
    }

    @Test("without a file reachd starts as before, and serves")
    func missingFileIsNoError() async throws {
        let directories = try XDGDirectories()
        try await withPrivateBus { session in
            let reachd = try directories.startReachd(session: session, ["--log-level", "debug"])
            defer { reachd.stop(SIGKILL) }
            try await eventually("reachd serves; its stderr: \(reachd.standardError)") {
                if let status = reachd.poll() { throw TestFailure("reachd exited \(status): \(reachd.standardError)") }
                return try await session.owner(of: ReachdProcess.busName) != nil
            }
            #expect(reachd.standardError.contains("serving the session bus; no configuration file (looked for \(directories.userFile)"),
                    "it says where it looked: \(reachd.standardError)")
            #expect(reachd.standardError.contains(" settle-ms=0 "), "the defaults: \(reachd.standardError)")
        }
    }

    @Test("the user's file is read, else the first in XDG_CONFIG_DIRS; only one file, never a mix")
    func systemFileWhenTheUsersIsAbsent() async throws {
        let directories = try XDGDirectories()
        try directories.writeSystemFile(1, "[reachd]\nlog-level=debug\nsettle-ms=250\nmax-monitors=7\n")
        try directories.writeSystemFile(0, "[reachd]\nlog-level=debug\nsettle-ms=120\n")
        let system = try await directories.runReachd()
        #expect(system.standardError.contains("configuration file: \(directories.systemFile(0))"), "\(system.transcript)")
        #expect(system.standardError.contains(" settle-ms=120 max-monitors-per-client=64 max-monitors=4096 "), "\(system.transcript)")
        try directories.writeUserFile("[reachd]\nlog-level=debug\nmax-monitors=9\n")
        let user = try await directories.runReachd()
        #expect(user.standardError.contains("configuration file: \(directories.userFile)"), "\(user.transcript)")
        #expect(user.standardError.contains(" settle-ms=0 max-monitors-per-client=64 max-monitors=9 "), "\(user.transcript)")
    }
}

/// A private `XDG_CONFIG_HOME` and two `XDG_CONFIG_DIRS`, removed afterwards.
private final class XDGDirectories {
    let root: String

    init() throws {
        var template = Array("\(FileManager.default.temporaryDirectory.path)/reachd-conf-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw TestFailure("mkdtemp failed") }
        root = String(cString: made)
        for directory in ["home/reachd", "system0/reachd", "system1/reachd"] {
            try FileManager.default.createDirectory(atPath: "\(root)/\(directory)", withIntermediateDirectories: true)
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    var userFile: String { "\(root)/home/reachd/reachd.conf" }
    func systemFile(_ index: Int) -> String { "\(root)/system\(index)/reachd/reachd.conf" }

    func writeUserFile(_ text: String) throws {
        try text.write(toFile: userFile, atomically: true, encoding: .utf8)
    }

    func writeSystemFile(_ index: Int, _ text: String) throws {
        try text.write(toFile: systemFile(index), atomically: true, encoding: .utf8)
    }

    var environment: [String: String] {
        ["XDG_CONFIG_HOME": "\(root)/home", "XDG_CONFIG_DIRS": "\(root)/system0:\(root)/system1"]
    }

    /// reachd with these directories and no session bus: it reads its file,
    /// logs, and exits 1 when it cannot reach the bus (or 64 for a bad file).
    func runReachd(_ arguments: [String] = []) async throws -> ToolResult {
        try await runTool(ReachdProcess.executable, arguments,
                          environment: environment.merging(["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"]) { $1 })
    }

    /// The options reachd runs with, from its debug line `options: [reachd] settle-ms=… …`
    /// (the file or the arguments must set log-level debug), with a space at each end.
    func effectiveOptions(_ arguments: [String] = []) async throws -> String {
        let result = try await runReachd(arguments)
        guard result.status == 1, let line = result.standardError.split(separator: "\n").first(where: { $0.contains("] options: ") }),
              let start = line.range(of: "] options: ")?.upperBound else {
            throw TestFailure("reachd logged no options at debug: \(result.transcript)")
        }
        return " \(line[start...]) "
    }

    /// reachd serving on `session` with these directories.
    func startReachd(session: PrivateBus, _ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(ReachdProcess.executable, arguments + ["--system-bus-address", absentSystemBusAddress()],
                         environment: environment.merging(["DBUS_SESSION_BUS_ADDRESS": session.address]) { $1 },
                         unsetting: ["DBUS_SYSTEM_BUS_ADDRESS"], keepFatalWarnings: true)
    }
}
