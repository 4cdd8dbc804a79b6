import Foundation
import ReachdTestSupport
import Testing

/// reachd gives back the code pages its start-up touched once it serves (issue 45: an idle
/// reachd's VmRSS), answers from pages that map back as they are touched, and gives nothing back
/// under a debugger or tracer, whose breakpoints live in private copies of code pages.
@Suite("start-up's code pages", .timeLimit(.minutes(2)))
struct StartUpPagesTests {
    /// The resident KiB of reachd's own code (its executable's r-xp mappings).
    static func residentCode(of pid: pid_t) throws -> Int {
        let smaps = try String(contentsOfFile: "/proc/\(pid)/smaps", encoding: .utf8)
        var inCode = false
        var total = 0
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let range = fields.first, range.contains("-"), fields.count >= 5 {
                inCode = fields[1] == "r-xp" && fields.last?.hasSuffix("/reachd") == true
            } else if inCode, fields.first == "Rss:", let kib = Int(fields[1]) {
                total += kib
            }
        }
        return total
    }

    static func getStatus(_ session: PrivateBus) async throws -> ToolResult {
        try await runTool("busctl", ["--address=\(session.address)", "call", "io.reachd.Reachability1", "/io/reachd/Reachability1",
                                     "io.reachd.Reachability1", "GetStatus"])
    }

    @Test("once reachd serves it gives back start-up's code pages, fewer stay mapped, and it answers from pages that map back")
    func givenBackOnceServing() async throws {
        let session = try PrivateBus(.session)
        defer { session.stop() }
        try await withReachd(session: session, systemBus: absentSystemBusAddress(), arguments: ["--log-level", "debug"]) { reachd in
            try await eventually(timeout: .seconds(10), "the pages are given back: \(reachd.standardError)") {
                reachd.standardError.contains("gave back start-up's code pages: ")
            }
            let line = reachd.standardError.split(separator: "\n").first { $0.contains("gave back start-up's code pages: ") } ?? ""
            let kib = line.split(separator: ":").last?.split(separator: " ").first.flatMap { Int($0) } ?? 0
            #expect(kib > 1024, "\(line)")
            let status = try await Self.getStatus(session)
            #expect(status.succeeded && !status.standardOutput.isEmpty, "\(status.transcript)")
            // What serving a call maps back is a part of what start-up had mapped: the debug
            // build's code alone is tens of MiB, of which start-up touches several.
            let resident = try Self.residentCode(of: reachd.pid)
            #expect(resident > 0 && resident < kib / 2, "reachd's code resident after a call: \(resident) KiB, of \(kib) KiB given back")
        }
    }

    @Test("under a tracer nothing is given back, and reachd serves as ever")
    func keptUnderATracer() async throws {
        let session = try PrivateBus(.session)
        defer { session.stop() }
        let traced = try ChildProcess("/usr/bin/strace", ["-f", "-o", "/dev/null", ReachdProcess.executable, "--log-level", "debug",
                                                          "--no-config", "--system-bus-address", absentSystemBusAddress()],
                                      environment: ["DBUS_SESSION_BUS_ADDRESS": session.address], keepFatalWarnings: true)
        defer {
            // reachd is strace's child: ended with SIGTERM, as reachd's own stop, strace follows.
            let children = (try? String(contentsOfFile: "/proc/\(traced.pid)/task/\(traced.pid)/children", encoding: .utf8)) ?? ""
            for child in children.split(separator: " ").compactMap({ pid_t($0) }) { kill(child, SIGTERM) }
            if children.isEmpty { traced.stop() }
            _ = traced.waitBlocking()
            traced.removeOutput()
        }
        try await eventually(timeout: .seconds(30), "reachd serves under strace: \(traced.standardError)") {
            traced.standardError.contains("kept start-up's code pages: a debugger or tracer is attached")
        }
        #expect(!traced.standardError.contains("gave back start-up's code pages"), "\(traced.standardError)")
        let status = try await Self.getStatus(session)
        #expect(status.succeeded, "\(status.transcript)")
    }
}
