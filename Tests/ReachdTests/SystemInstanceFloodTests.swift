import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// One user's flood costs other users nothing (issue 40): `reachd --system` as user `reachd` on
/// Debian's deny-by-default bus, its name server one that never answers, one user flooding it with
/// never-answered names at the bus's own per-user limits, another user asking about a literal.
@Suite("reachd --system under one user's flood", .serialized, .timeLimit(.minutes(3)))
struct SystemInstanceFloodTests {
    static let tool = SystemInstance.repository.appendingPathComponent("Scripts/harness/host-flood").path

    /// Before: 256 × 128 calls stalled the other user's `CheckHost 127.0.0.1` for up to 14 s and
    /// left reachd at ~220 MB for good. The flood comes from as many connections as Debian's bus
    /// lets one user have (256, `max_connections_per_user`), each with `callsEach` calls waiting
    /// (the bus allows 128, `max_replies_per_connection`): fewer than the most, because reachd
    /// answers calls in the order they arrive, and a debug build on a busy test machine takes too
    /// long over 32,768 of them whatever it answers (256 × 16 took the victim 1.2 s beside the whole
    /// suite; 256 × 8, 2,048 names, is still 8 times the cap). Scripts/bench's `flood` row measures
    /// the whole 256 × 128 on a release build.
    @Test("a flood of never-answered names at the bus's per-user limits: another user's literal is answered within 1 s throughout, the flood beyond the cap is refused, and reachd's memory comes back")
    func anotherUsersLiteralIsAnsweredThroughAFlood() async throws {
        try await withDebianSystemBus { bus, _ in
            let resolver = try Self.neverAnsweringResolver()
            defer { try? FileManager.default.removeItem(atPath: (resolver as NSString).deletingLastPathComponent) }
            let reachd = try ReachdProcess(session: bus, systemBus: bus.address, systemInstance: true,
                                           user: SystemInstance.serviceUser, resolverConfiguration: resolver)
            defer { reachd.stop() }
            try await reachd.waitUntilServing()

            let probe = try SystemInstance.asUser(SystemInstance.nobody, bus: bus, Self.tool, ["probe", bus.address, "127.0.0.1", "20"])
            defer { probe.stop() }
            try await eventually(timeout: .seconds(30), "the other user's probe is answered:\n\(probe.standardOutput)\(probe.standardError)") {
                Self.latencies(probe.standardOutput).count >= 10
            }
            let memoryBefore = try Self.residentKiB(of: reachd.pid)
            let answeredBefore = Self.latencies(probe.standardOutput).count

            let flood = try SystemInstance.asUser(SystemInstance.testUser, bus: bus, Self.tool,
                                                  ["flood", bus.address, "256", String(Self.callsEach), "n%d.flood.test"])
            defer { flood.stop() }
            try await eventually(timeout: .seconds(90), "every call of the flood is answered:\n\(flood.standardOutput)\(flood.standardError)") {
                if flood.poll() != nil { throw TestFailure("host-flood exited: \(flood.standardOutput)\(flood.standardError)") }
                return flood.standardOutput.contains("done\n")
            }
            let answers = Self.answers(flood.standardOutput)
            #expect(flood.standardOutput.contains("connections 256\n"), "\(flood.standardOutput)\(flood.standardError)")
            let refused = answers["io.reachd.Reachability1.Error.LimitExceeded", default: 0]
            // 256 waiting and 2 on a resolver thread get an answer; the rest are refused at once.
            #expect(refused >= 256 * Self.callsEach - 300, "the user's calls beyond its 256 waiting lookups are refused: \(answers)")
            #expect(Set(answers.keys).isSubset(of: ["ok", "io.reachd.Reachability1.Error.LimitExceeded"]), "\(answers)")

            let during = Array(Self.latencies(probe.standardOutput).dropFirst(answeredBefore))
            #expect(during.count >= 10, "the other user's probe kept being answered during the flood: \(during.count) answers")
            let worst = during.map(\.milliseconds).max() ?? 0
            // The bound the issue sets; the old queue held the answer 14 s.
            #expect(worst < 1000, "the other user's CheckHost 127.0.0.1 took up to \(worst) ms during the flood")
            #expect(during.allSatisfy { $0.outcome == "1" || $0.outcome == "2" }, "answers: \(Set(during.map(\.outcome)))")

            // The flooder leaves; within 30 s reachd is back near where it started.
            flood.stop()
            var memoryAfter = 0
            try await eventually(timeout: .seconds(30), "reachd's memory comes back: \(memoryBefore) KiB before the flood, \(memoryAfter) KiB now") {
                memoryAfter = try Self.residentKiB(of: reachd.pid)
                return memoryAfter <= memoryBefore + Self.memoryMargin
            }
            print(flood.standardOutput.split(separator: "\n").filter { $0.hasPrefix("answered") }.joined())
            print("flood: worst \(worst) ms for the other user's literal; VmRSS \(memoryBefore) KiB before, \(memoryAfter) KiB after")
            if let status = reachd.process.poll() {
                throw TestFailure("reachd exited with status \(status) during the test; stderr:\n\(reachd.standardError)")
            }
        }
    }

    static let callsEach = 8

    /// "Near": what the callers' 256 connections leave behind in libdbus's and glibc's own
    /// caches. The old daemon stayed 200 MB up.
    static let memoryMargin = 8 * 1024

    /// A resolv.conf naming the gateway of the tests' namespace, where nothing answers (no
    /// neighbour at 192.0.2.1), with a timeout longer than reachd's: names are never answered.
    static func neverAnsweringResolver() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-resolver-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        let file = folder.appendingPathComponent("resolv.conf")
        try "nameserver 192.0.2.1\noptions timeout:30 attempts:1\n".write(to: file, atomically: true, encoding: .utf8)
        guard chmod(file.path, 0o644) == 0 else { throw TestFailure("chmod \(file.path) failed") }
        return file.path
    }

    static func latencies(_ output: String) -> [(milliseconds: Double, outcome: String)] {
        output.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 1)
            guard fields.count == 2, let milliseconds = Double(fields[0]) else { return nil }
            return (milliseconds, String(fields[1]))
        }
    }

    static func answers(_ output: String) -> [String: Int] {
        var answers: [String: Int] = [:]
        for line in output.split(separator: "\n") where line.hasPrefix("answer ") {
            let fields = line.split(separator: " ")
            if fields.count == 3, let count = Int(fields[2]) { answers[String(fields[1])] = count }
        }
        return answers
    }

    static func residentKiB(of pid: pid_t) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else {
            throw TestFailure("no VmRSS in /proc/\(pid)/status")
        }
        return kib
    }
}
