import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// The system instance's files (issue 27) as `Scripts/install` puts them in place, placeholders
/// filled in: the unit systemd runs, the activation file and the policy a Debian system bus reads,
/// the `sysusers.d` entry that makes user `reachd`. SystemInstanceTests run `reachd --system` with
/// the repository's copies; these hold the installed copies to what an administrator relies on.
///
/// Installed once, into a scratch DESTDIR with the default prefix (/usr/local), beside
/// PackageTests' release build, replacing the last run's.
@Suite("System instance files, as installed", .serialized, .timeLimit(.minutes(25)))
struct SystemInstanceFilesTests {
    static let prefix = "/usr/local"
    static let installed = ScratchInstall.installOnce(prefix: prefix, folder: "system-instance")

    static let unit = "\(prefix)/lib/systemd/system/reachd.service"
    static let activationFile = "\(prefix)/share/dbus-1/system-services/io.reachd.Reachability1.service"
    static let policyDirectory = "\(prefix)/share/dbus-1/system.d"
    static let sysusersEntry = "\(prefix)/lib/sysusers.d/reachd.conf"

    /// The exposure `systemd-analyze security` prints last: "→ Overall exposure level for reachd.service: 1.3 OK 🙂".
    static func overallExposure(in output: String) -> Double? {
        let marker = "Overall exposure level for reachd.service:"
        guard let line = output.split(separator: "\n").last(where: { $0.contains(marker) }),
              let rest = line.components(separatedBy: marker).last else { return nil }
        return rest.split(separator: " ").first.flatMap { Double($0) }
    }

    /// `@name@` placeholders Scripts/install should have filled in (`@system-service` and the other
    /// system-call groups of SystemCallFilter= are not placeholders: no closing `@`).
    static func placeholders(in text: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: "@[A-Za-z_]+@")
        return pattern.matches(in: text, range: NSRange(text.startIndex..., in: text))
            .map { String(text[Range($0.range, in: text)!]) }
    }

    @Test("the unit as installed runs the installed reachd --system as user reachd, has no placeholder left, and systemd-analyze security --offline=yes rates its exposure at most 1.5")
    func unitExposure() async throws {
        let destination = try await Self.installed.value
        let path = destination + Self.unit
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(Self.placeholders(in: text).isEmpty, "placeholders left in \(Self.unit): \(Self.placeholders(in: text))")
        #expect(text.contains("\nExecStart=\(Self.prefix)/bin/reachd --system\n"), "\(text)")
        #expect(text.contains("\nUser=reachd\n") && text.contains("\nCapabilityBoundingSet=\n"), "\(text)")
        #expect(access(destination + "\(Self.prefix)/bin/reachd", X_OK) == 0)

        let analysis = try await runTool("systemd-analyze", ["security", "--offline=yes", path])
        let exposure = try #require(Self.overallExposure(in: analysis.standardOutput), "no overall exposure: \(analysis.transcript)")
        #expect(analysis.succeeded, "\(analysis.transcript)")
        #expect(exposure <= 1.5, "exposure \(exposure) (issue 27: at most 1.5):\n\(analysis.standardOutput)")
        // systemd-analyze reports a directive it cannot parse on standard error, and skips it.
        #expect(!analysis.standardError.contains(path), "\(analysis.standardError)")
    }

    @Test("the activation file as installed is a system-bus service for user reachd, handed to reachd.service, running the installed reachd --system")
    func activationFileFields() async throws {
        let destination = try await Self.installed.value
        let text = try String(contentsOfFile: destination + Self.activationFile, encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") && !$0.isEmpty }
        #expect(lines.first == "[D-BUS Service]", "\(text)")
        let fields = Dictionary(lines.dropFirst().compactMap { line -> (String, String)? in
            guard let equals = line.firstIndex(of: "=") else { return nil }
            return (String(line[..<equals]), String(line[line.index(after: equals)...]))
        }, uniquingKeysWith: { first, _ in first })
        #expect(fields == ["Name": "io.reachd.Reachability1", "Exec": "\(Self.prefix)/bin/reachd --system",
                           "User": "reachd", "SystemdService": "reachd.service"], "\(text)")
        let executable = try #require(fields["Exec"]?.split(separator: " ").first.map(String.init))
        #expect(executable.hasPrefix("/") && access(destination + executable, X_OK) == 0, "Exec= \(executable)")
    }

    @Test("a Debian system bus reads the installed policy and activation file: no warning, the name activatable, owned only by reachd and root")
    func systemBusReadsTheInstalledFiles() async throws {
        let destination = try await Self.installed.value
        try await SystemInstance.ensureUsers()
        let policy = "\(destination)\(Self.policyDirectory)/io.reachd.Reachability1.conf"
        // Well-formed XML: dbus-daemon would skip a file it cannot parse, and say so only in its log.
        try await runToolChecked("python3", ["-c", "import sys, xml.parsers.expat; xml.parsers.expat.ParserCreate().ParseFile(open(sys.argv[1], 'rb'))", policy])

        // The machine's own policies warn of things too (an fd limit a container refuses): what
        // counts is what the installed files add.
        let baseline = try PrivateBus(debianSystemBusWith: [])
        defer { baseline.stop() }
        let bus = try PrivateBus(debianSystemBusWith: [destination + Self.policyDirectory],
                                 serviceDirectories: ["\(destination)\(Self.prefix)/share/dbus-1/system-services"])
        defer { bus.stop() }
        let names = try await bus.busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                         "ListActivatableNames")
        #expect(names.succeeded && names.standardOutput.contains("\"io.reachd.Reachability1\""), "\(names.transcript)")
        _ = try await baseline.busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId")
        func warnings(_ bus: PrivateBus) -> Set<String> {
            // "dbus-daemon[PID]: …": the process ID differs between the two buses.
            Set(bus.standardError.split(separator: "\n").map { line in
                line.split(separator: ":", maxSplits: 1).last.map(String.init) ?? String(line)
            })
        }
        #expect(warnings(bus).subtracting(warnings(baseline)).isEmpty,
                "the installed files add warnings: \(warnings(bus).subtracting(warnings(baseline)))")

        // The policy is in force: the service's user may own the name, another user may not.
        let requestName = ["/usr/bin/busctl", "--address=\(bus.address)", "call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
                           "org.freedesktop.DBus", "RequestName", "su", "io.reachd.Reachability1", "4"]
        let asReachd = try await SystemInstance.run(as: SystemInstance.serviceUser, bus: bus, requestName[0], Array(requestName.dropFirst()))
        #expect(asReachd.standardOutput == "u 1\n", "user reachd owns the name: \(asReachd.transcript)")
        let asNobody = try await SystemInstance.run(as: SystemInstance.nobody, bus: bus, requestName[0], Array(requestName.dropFirst()))
        #expect(!asNobody.succeeded && asNobody.standardError.contains("Access denied"), "\(asNobody.transcript)")
    }

    /// issue 38: machines without systemd. SupervisionTests run both; these hold what is installed.
    @Test("the init script and the inittab line as installed run the installed reachd --system --replace as user reachd, have no placeholder left, and the script is POSIX sh with an LSB header and every action Debian's policy asks")
    func initScriptAndInittabLine() async throws {
        let destination = try await Self.installed.value
        let path = "\(destination)\(Self.prefix)/etc/init.d/reachd"
        let script = try String(contentsOfFile: path, encoding: .utf8)
        #expect(Self.placeholders(in: script).isEmpty, "\(Self.placeholders(in: script))")
        #expect(access(path, X_OK) == 0 && script.hasPrefix("#!/bin/sh\n### BEGIN INIT INFO\n# Provides:          reachd\n"), "\(script)")
        #expect(script.contains("\nDAEMON=\(Self.prefix)/bin/reachd\n") && script.contains("\nDAEMON_USER=reachd\n")
                && script.contains("-- --system --replace $REACHD_OPTS"), "\(script)")
        for action in ["start)", "stop)", "restart|force-reload)", "status)"] {
            #expect(script.contains("\n    \(action)\n"), "\(action)")
        }
        // dash, Debian's /bin/sh, parses it (no bash-only syntax it would refuse).
        try await runToolChecked("/bin/dash", ["-n", path])

        let inittab = try String(contentsOfFile: "\(destination)\(Self.prefix)/share/reachd/inittab", encoding: .utf8)
        let lines = inittab.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }
        #expect(lines == ["::respawn:/sbin/start-stop-daemon -S -m -p /run/reachd.pid -c reachd -x \(Self.prefix)/bin/reachd -- --system --replace"],
                "\(inittab)")
    }

    @Test("the sysusers.d entry as installed makes user reachd: a system user with its own group, no home and no login shell")
    func sysusersEntryMakesTheUser() async throws {
        let destination = try await Self.installed.value
        // A scratch root holding only the entry, where systemd-sysusers looks under /usr/local,
        // and an empty /etc for the account files it writes.
        let root = try ScratchInstall.makeDestination("sysusers")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: "\(root)/etc", withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: root + (Self.sysusersEntry as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: destination + Self.sysusersEntry, toPath: root + Self.sysusersEntry)
        try await runToolChecked("systemd-sysusers", ["--root=\(root)", "reachd.conf"])
        let passwd = try String(contentsOfFile: "\(root)/etc/passwd", encoding: .utf8).split(separator: "\n")
        let group = try String(contentsOfFile: "\(root)/etc/group", encoding: .utf8).split(separator: "\n")
        let user = try #require(passwd.first { $0.hasPrefix("reachd:") }, "\(passwd)").split(separator: ":", omittingEmptySubsequences: false)
        let ownGroup = try #require(group.first { $0.hasPrefix("reachd:") }, "\(group)").split(separator: ":", omittingEmptySubsequences: false)
        let uid = try #require(Int(user[2])), gid = try #require(Int(user[3]))
        #expect(uid > 0 && uid < 1000 && gid == Int(ownGroup[2]), "\(user), \(ownGroup)")
        #expect(user[5] == "/nonexistent" && user[6] == "/usr/sbin/nologin", "\(user)")
    }
}
