import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// Whose reachd's configuration file may be (issue 40, item 3; issue 38, item 4): whoever writes
/// it decides what reachd's own check fetches and whether the sources are cross-checked. Every
/// instance reads only a regular file, not through a last-component symbolic link, and never
/// waits on a FIFO; the system instance reads only a file root owns and only root can write, in
/// folders that up to `/` are root's and writable by no one else (as sudo reads sudoers), whether
/// it is `/etc/reachd/reachd.conf` or `--config FILE`. `--check-config` says what reachd would.
///
/// Each check runs with a bound: before, a FIFO hung `--check-config` and reachd's start.
@Suite("whose reachd's configuration file may be", .timeLimit(.minutes(2)))
struct ConfigurationFileSafetyTests {
    /// A start or check refused for the file: quickly, whatever the file is.
    static let bound = Duration.seconds(20)

    /// reachd with no bus to serve: 64 when it refuses its file, else 1 (the bus is not there).
    private static func run(_ arguments: [String]) async throws -> ToolResult {
        let absent = absentSystemBusAddress()
        return try await runTool(ReachdProcess.executable, arguments,
                                 environment: ["DBUS_SYSTEM_BUS_ADDRESS": absent, "DBUS_SESSION_BUS_ADDRESS": absent], timeout: bound)
    }

    /// `--check-config` and a start, for a session's reachd and the system instance: each refuses
    /// `file` with 64, saying `says`.
    private static func expectRefused(_ file: String, says: String, system: [Bool] = [false, true],
                                      sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for system in system {
            let instance = system ? ["--system"] : []
            let check = try await run(["--check-config"] + instance + ["--config", file])
            #expect(check.status == 64 && check.standardError.contains("\(file): error: \(says)"),
                    "--check-config \(instance): \(check.transcript)", sourceLocation: sourceLocation)
            let start = try await run(instance + ["--config", file])
            #expect(start.status == 64 && start.standardError.contains("reachd: \(file): \(says)"),
                    "start \(instance): \(start.transcript)", sourceLocation: sourceLocation)
            #expect(!start.standardError.contains("serving the"), "refused before it serves: \(start.transcript)",
                    sourceLocation: sourceLocation)
        }
    }

    @Test("a FIFO is refused at once, by the check and the start (before: both waited for a writer forever)")
    func fifoIsRefusedAtOnce() async throws {
        let folder = try TemporaryFolder.rootOnly()
        let fifo = folder.path + "/reachd.conf"
        guard mkfifo(fifo, 0o644) == 0 else { throw TestFailure("mkfifo: \(String(cString: strerror(errno)))") }
        try await Self.expectRefused(fifo, says: "it is a FIFO (named pipe), not a regular file: reachd reads its configuration only from a regular file")
    }

    @Test("a symbolic link to a good file is refused, naming where it leads; the file itself is read")
    func symbolicLinkIsRefused() async throws {
        let folder = try TemporaryFolder.rootOnly()
        let file = folder.path + "/real.conf", link = folder.path + "/reachd.conf"
        try "[reachd]\nsettle-ms=5\n".write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o644)
        guard symlink(file, link) == 0 else { throw TestFailure("symlink: \(String(cString: strerror(errno)))") }
        try await Self.expectRefused(link, says: "it is a symbolic link to \(file), which reachd does not follow to its configuration: "
                                     + "give --config the file itself")
        let direct = try await Self.run(["--check-config", "--system", "--config", file])
        #expect(direct.status == 0 && direct.standardError.contains("\(file): no problems"), "\(direct.transcript)")
    }

    @Test("the system instance refuses a file others can write, and says to chmod it; a session's reachd reads it")
    func worldWritableFileIsRefusedBySystemInstance() async throws {
        let folder = try TemporaryFolder.rootOnly()
        let file = folder.path + "/reachd.conf"
        try "[connectivity]\nuri=http://attacker.example/\n".write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o666)
        // Before: "no problems", 0.
        try await Self.expectRefused(file, says: "it can be written by its group and others (mode 0666): the system instance reads only "
                                     + "a file only root can write; as root: chmod go-w \(file)", system: [true])
        let session = try await Self.run(["--check-config", "--config", file])
        #expect(session.status == 0 && session.standardError.contains("\(file): no problems"), "\(session.transcript)")
        chmod(file, 0o644)
        let fixed = try await Self.run(["--check-config", "--system", "--config", file])
        #expect(fixed.status == 0 && fixed.standardError.contains("\(file): no problems"), "\(fixed.transcript)")
    }

    @Test("the system instance refuses a file in a folder its group can write, naming the folder and the chmod")
    func groupWritableFolderIsRefusedBySystemInstance() async throws {
        let folder = try TemporaryFolder.rootOnly()
        let inner = folder.path + "/data"
        try FileManager.default.createDirectory(atPath: inner, withIntermediateDirectories: false)
        chmod(inner, 0o775)
        let file = inner + "/reachd.conf"
        try "[reachd]\nsettle-ms=5\n".write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o644)
        try await Self.expectRefused(file, says: "its folder \(inner) is writable by its group (mode 0775), so someone other than root "
                                     + "could replace the file: keep it where only root can write every folder up to / (as /etc/reachd), "
                                     + "or as root: chmod go-w \(inner)", system: [true])
        chmod(inner, 0o755)
        let fixed = try await Self.run(["--check-config", "--system", "--config", file])
        #expect(fixed.status == 0 && fixed.standardError.contains("\(file): no problems"), "\(fixed.transcript)")
    }

    @Test("the system instance refuses a file another user owns, and a folder up the path that others can write (/tmp)")
    func ownerAndEveryFolderUpToRootCount() async throws {
        let folder = try TemporaryFolder.rootOnly()
        let file = folder.path + "/reachd.conf"
        try "[reachd]\nsettle-ms=5\n".write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o644)
        guard chown(file, 65534, 65534) == 0 else { throw TestFailure("chown: \(String(cString: strerror(errno)))") }
        let owner = getpwuid(65534).map { String(cString: $0.pointee.pw_name) + " (uid 65534)" } ?? "uid 65534"
        try await Self.expectRefused(file, says: "it is owned by \(owner), not root: the system instance reads only a file root owns, "
                                     + "as sudo reads sudoers; as root: chown root:root \(file)", system: [true])

        // Up the path: a root-owned file in a root-owned folder under /tmp, which everyone can write.
        let underTemporary = try TemporaryFolder(mode: 0o755)
        let deep = underTemporary.path + "/reachd.conf"
        try "[reachd]\nsettle-ms=5\n".write(toFile: deep, atomically: true, encoding: .utf8)
        chmod(deep, 0o644)
        var resolved = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let temporary = String(cString: realpath(FileManager.default.temporaryDirectory.path, &resolved)!)
        var status = stat()
        guard stat(temporary, &status) == 0, status.st_mode & 0o002 != 0 else {
            throw TestFailure("\(temporary) is not writable by others here: this part needs the usual /tmp (mode 1777)")
        }
        let check = try await Self.run(["--check-config", "--system", "--config", deep])
        #expect(check.status == 64 && check.standardError.contains("\(deep): error: its folder \(temporary) is writable by its group and others (mode 1777)"),
                "\(check.transcript)")
    }

    @Test("the system instance serves with a --config file root owns in folders only root can write, and says which file it read")
    func systemInstanceReadsAGoodConfigFile() async throws {
        let folder = try TemporaryFolder.rootOnly()
        let file = folder.path + "/reachd.conf"
        try "[reachd]\nsettle-ms=5\n".write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o644)
        let start = try await Self.run(["--system", "--config", file, "--log-target", "stderr"])
        #expect(start.status == 1 && start.standardError.contains("serving the system bus; configuration file: \(file)"), "\(start.transcript)")
    }
}
