import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// One user's flood costs other users nothing (issue 40): `reachd --system` as user `reachd` on
/// Debian's deny-by-default bus, its name server one that never answers, one user flooding it with
/// never-answered names at the bus's own per-user limits, another user asking about a literal.
@Suite("reachd --system under one user's floods", .serialized, .timeLimit(.minutes(25)))
struct SystemInstanceFloodTests {
    static let tool = SystemInstance.repository.appendingPathComponent("Scripts/harness/host-flood").path

    /// Before: 256 × 128 calls stalled the other user's `CheckHost 127.0.0.1` for up to 14 s and
    /// left reachd at ~220 MB for good (issue 40); then, answered in arrival order, 3 s in one run
    /// of four (issue 44). The flood comes from as many connections as Debian's bus lets one user
    /// have (256, `max_connections_per_user`), each with `callsEach` calls waiting, five times
    /// over, against reachd as `Scripts/install` builds it (the figure is the product's).
    ///
    /// The whole of what the bus allows: 128 calls waiting on each connection, 32,768 names a
    /// flood, 128 times the user's cap. Each party runs in a session of its own, as on a machine:
    /// the bus and reachd as services, the flooding user and the other user as logins (with the
    /// kernel's autogroups, a session is a share of the CPU). Scripts/test runs this test after
    /// the others, alone: it keeps both cores busy for about a minute.
    ///
    /// The bound is 1 s plus twelve times what the bus itself made the other user wait in the same
    /// flood (`bus-probe`: the bus's own `GetNameOwner`). A flood this size can tip dbus-daemon
    /// over: it keeps every routed call on one list that it walks for each call and reply, and it
    /// reads reachd's connection 4 KiB a visit among 256 others. When the flooder outruns it, the
    /// list grows toward the whole flood, the bus spends up to 10 s a flood, and its own answer
    /// to the other user takes up to 1 s (issue 44's note; the fresh-clone CI run of 2026-12-05
    /// saw reachd's worst at 5-10 s there). reachd cannot make the bus faster; what it adds is
    /// its pipe of replies ahead of the other user's (`Connection.outgoingBacklog` and the socket's
    /// buffer, about 27 of the bus's visits): measured at 4-10 times the bus's own answer. A
    /// shorter pipe cut that to 3-7 but slowed reachd's bursts of signals (issue 44's note). The
    /// order of answers (turns, not arrival) is `CallTurnsTests`'s.
    @Test("five floods of never-answered names from one user's 256 connections: another user's literal is answered throughout each, within 1 s plus a few times the bus's own delay, the flood beyond the cap is refused, and reachd's memory comes back")
    func anotherUsersLiteralIsAnsweredThroughFloods() async throws {
        let resolver = try Self.neverAnsweringResolver()
        defer { try? FileManager.default.removeItem(atPath: (resolver as NSString).deletingLastPathComponent) }
        // Debian's system bus with reachd's policy, and nothing else on it.
        try await withInstalledSystemInstance(resolverConfiguration: resolver) { bus, reachd in
            let probe = try SystemInstance.asUser(SystemInstance.nobody, bus: bus, Self.tool, ["probe", bus.address, "127.0.0.1", "20"], ownSession: true)
            defer { probe.stop() }
            let control = try SystemInstance.asUser(SystemInstance.nobody, bus: bus, Self.tool, ["bus-probe", bus.address, "20"], ownSession: true)
            defer { control.stop() }
            try await eventually(timeout: .seconds(30), "the other user's probe is answered:\n\(probe.standardOutput)\(probe.standardError)") {
                Self.latencies(probe.standardOutput).count >= 10
            }
            let memoryBefore = try ProcessFigures.residentKiB(of: reachd.pid)
            var worstOfEach: [Double] = [], busOwnWorst: [Double] = []
            for round in 1...Self.rounds {
                let answeredBefore = Self.latencies(probe.standardOutput).count
                let controlBefore = Self.latencies(control.standardOutput).count
                let cpuBefore = try ProcessFigures.cpuTime(of: reachd.pid)
                let busCPUBefore = try ProcessFigures.cpuTime(of: bus.pid)
                let flood = try SystemInstance.asUser(SystemInstance.testUser, bus: bus, Self.tool,
                                                      ["flood", bus.address, "256", String(Self.callsEach), "r\(round)n%d.flood.test"],
                                                      ownSession: true)
                defer { flood.stop() }
                try await eventually(timeout: .seconds(120), "round \(round): the flood's calls beyond the cap are answered:\n\(flood.standardOutput)\(flood.standardError)") {
                    if flood.poll() != nil { throw TestFailure("host-flood exited: \(flood.standardOutput)\(flood.standardError)") }
                    return flood.standardOutput.contains("\nwaiting ")
                }
                let answers = Self.answers(flood.standardOutput, prefix: "so-far")
                #expect(flood.standardOutput.hasPrefix("connections 256\n"), "\(flood.standardOutput)\(flood.standardError)")
                // Beyond the user's 256 waiting lookups the calls are refused at once.
                #expect(answers["io.reachd.Reachability1.Error.LimitExceeded", default: 0] >= 256 * Self.callsEach - 512 - 300,
                        "round \(round): the user's calls beyond its waiting lookups are refused: \(answers)")
                #expect(Set(answers.keys).isSubset(of: ["ok", "io.reachd.Reachability1.Error.LimitExceeded"]), "\(answers)")
                let during = Array(Self.latencies(probe.standardOutput).dropFirst(answeredBefore))
                #expect(during.count >= 5, "round \(round): the other user's probe kept being answered: \(during.count) answers")
                #expect(during.allSatisfy { $0.outcome == "1" || $0.outcome == "2" }, "answers: \(Set(during.map(\.outcome)))")
                worstOfEach.append(during.map(\.milliseconds).max() ?? 0)
                let controlDuring = Array(Self.latencies(control.standardOutput).dropFirst(controlBefore))
                #expect(controlDuring.count >= 5, "round \(round): the bus kept answering the other user: \(controlDuring.count) answers")
                busOwnWorst.append(controlDuring.map(\.milliseconds).max() ?? 0)
                let cpu = try ProcessFigures.cpuTime(of: reachd.pid) - cpuBefore
                let busCPU = try ProcessFigures.cpuTime(of: bus.pid) - busCPUBefore
                let slow = during.enumerated().filter { $0.element.milliseconds > 300 }.map { "\($0.offset):\(Int($0.element.milliseconds))" }
                print("flood round \(round): \(flood.standardOutput.split(separator: "\n").first { $0.hasPrefix("waiting") } ?? ""); "
                      + "the probe answered \(during.count) times, worst \(Int(worstOfEach.last ?? 0)) ms (the bus's own answer: \(Int(busOwnWorst.last ?? 0)) ms); over 300 ms (answer:ms): \(slow.joined(separator: " ")); "
                      + "reachd's CPU \(cpu), the bus's \(busCPU)")
                // The flooder leaves, with its lookups; the next round is a new flood, once the bus
                // has had a moment to let the 256 connections go.
                flood.stop()
                try await Task.sleep(for: .seconds(3))
            }
            // The issue's 1 s, and what the bus itself costs the other user times reachd's pipe.
            let bounds = busOwnWorst.map { 1000 + Self.busDelaysAdded * $0 }
            #expect(zip(worstOfEach, bounds).allSatisfy { $0 < $1 },
                    "the other user's CheckHost 127.0.0.1 took up to \(worstOfEach) ms in the five floods; bounds \(bounds) ms from the bus's own answers, \(busOwnWorst) ms")

            var memoryAfter = 0
            try await eventually(timeout: .seconds(30), "reachd's memory comes back: \(memoryBefore) KiB before the floods, \(memoryAfter) KiB now") {
                memoryAfter = try ProcessFigures.residentKiB(of: reachd.pid)
                return memoryAfter <= memoryBefore + Self.memoryMargin
            }
            print("flood: worst \(worstOfEach.map { "\(Int($0))" }.joined(separator: ", ")) ms for the other user's literal in \(Self.rounds) rounds "
                  + "(the bus's own: \(busOwnWorst.map { "\(Int($0))" }.joined(separator: ", ")) ms); VmRSS \(memoryBefore) KiB before, \(memoryAfter) KiB after")
            if let status = reachd.process.poll() {
                throw TestFailure("reachd exited with status \(status) during the test; stderr:\n\(reachd.standardError)")
            }
        }
    }

    static let rounds = 5
    /// How many times the bus's own delay reachd's pipe of replies may add (measured: 4-10).
    static let busDelaysAdded = 12.0
    static let callsEach = 128

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

    static func answers(_ output: String, prefix: String = "answer") -> [String: Int] {
        var answers: [String: Int] = [:]
        for line in output.split(separator: "\n") where line.hasPrefix(prefix + " ") {
            let fields = line.split(separator: " ")
            if fields.count == 3, let count = Int(fields[2]) { answers[String(fields[1])] = count }
        }
        return answers
    }
}
