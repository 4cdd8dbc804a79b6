import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// An update leaves a configuration reachd refuses, on a device whose init respawns it at once
/// (contract 7, §4; BusyBox's `respawn` started it 29 times in 30 s). The supervisor here is PID 1
/// of a PID namespace that starts reachd again the moment it exits, without even BusyBox's pause,
/// and gives it a terminal as init gives its console.
@Suite("A refused configuration under an init that respawns at once", .timeLimit(.minutes(2)))
struct RespawnPaceTests {
    /// What each start of the supervisor's loop left: its times (ns) and what the terminal showed.
    struct Supervised {
        var starts: [UInt64]
        var terminal: String
    }

    /// Runs `reachd arguments…` under a supervisor that is PID 1 and restarts it at once (after
    /// `pause`), for `seconds`, with `environment` added; then the namespace ends, reachd with it.
    static func supervise(_ arguments: [String], for seconds: Int, pause: String = "0",
                          environment: [String: String] = [:]) async throws -> Supervised {
        guard geteuid() == 0 else { throw TestFailure("a PID namespace needs root: run the tests as root (Scripts/test does)") }
        let folder = try TemporaryFolder()
        let supervisor = folder.path + "/supervisor.sh"
        try """
            folder=$1 seconds=$2 pause=$3; shift 3
            end=$(( $(date +%s) + seconds ))
            while [ "$(date +%s)" -lt "$end" ]; do
                date +%s%N >> "$folder/starts"
                "$@"
                sleep "$pause"
            done
            """.write(toFile: supervisor, atomically: true, encoding: .utf8)
        let command = (["/usr/bin/unshare", "--pid", "--fork", "--kill-child", "--mount-proc", "/bin/sh", supervisor,
                        folder.path, String(seconds), pause, ReachdProcess.executable] + arguments).joined(separator: " ")
        // script(1): a pseudo-terminal for the supervisor and all it starts, as init's console.
        let child = try ChildProcess("/usr/bin/script", ["-qefc", command, "/dev/null"], environment: environment)
        defer { child.removeOutput() }
        _ = try await child.exit(timeout: .seconds(Int64(seconds) + 60))
        let starts = ((try? String(contentsOfFile: folder.path + "/starts", encoding: .utf8)) ?? "")
            .split(separator: "\n").compactMap { UInt64($0) }
        return Supervised(starts: starts, terminal: child.standardOutput + child.standardError)
    }

    static func badConfiguration(in folder: TemporaryFolder) throws -> String {
        let path = folder.path + "/reachd.conf"
        try "[connectivity]\nthis line is a typo\n".write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("refused as init's child on its console: reachd says why, waits 5 s before exiting, so init starts it at most once per 5 s")
    func atMostOneStartPerFiveSeconds() async throws {
        let folder = try TemporaryFolder()
        let configuration = try Self.badConfiguration(in: folder)
        // stderr: off the machine's syslog (a console is where reachd would otherwise choose it).
        let run = try await Self.supervise(["--config", configuration, "--log-target", "stderr"], for: 12)
        #expect(run.starts.count >= 2 && run.starts.count <= 4, "\(run.starts.count) starts in 12 s: \(run.terminal)")
        print("RespawnPaceTests: \(run.starts.count) starts in 12 s under a supervisor that restarts at once")
        #expect(run.terminal.contains("this line is a typo") || run.terminal.contains("reachd.conf:2"), "\(run.terminal)")
        #expect(run.terminal.contains("waiting 5 s before exiting: init starts reachd again at once"), "\(run.terminal)")
        for (earlier, later) in zip(run.starts, run.starts.dropFirst()) {
            #expect(later - earlier >= 4_900_000_000, "starts \(Double(later - earlier) / 1e9) s apart: \(run.terminal)")
        }
    }

    @Test("under systemd (INVOCATION_ID set) reachd exits at once: the unit's own start limit paces it")
    func notUnderSystemd() async throws {
        let folder = try TemporaryFolder()
        let configuration = try Self.badConfiguration(in: folder)
        let run = try await Self.supervise(["--config", configuration, "--log-target", "stderr"], for: 2, pause: "0.2",
                                           environment: ["INVOCATION_ID": "0123456789abcdef0123456789abcdef"])
        #expect(run.starts.count >= 3, "\(run.starts.count) starts in 2 s: \(run.terminal)")
        print("RespawnPaceTests: under systemd, \(run.starts.count) starts in 2 s (restarted after 0.2 s each)")
        #expect(!run.terminal.contains("waiting 5 s"), "\(run.terminal)")
    }
}
