import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// How reachd starts, hands over and stops (docs/design.md, "Start-up";
/// docs/administrators/configuration.md, "The command line"), as systemd and a user see it: exit codes, stderr, and who
/// owns the bus name.
@Suite("reachd's lifecycle on the session bus", .timeLimit(.minutes(1)))
struct LifecycleTests {
    static let name = ReachdProcess.busName

    @Test("--replace takes the name over directly from the running instance, which exits 0")
    func replaceHandsOverTheName() async throws {
        try await withPrivateBus { session in
            let first = try ReachdProcess(session: session, systemBus: absentSystemBusAddress())
            defer { first.stop() }
            let firstName = try await first.waitUntilServing()
            // Every change of the name's owner, as a client watching the bus sees it.
            let watcher = try BackgroundTool("gdbus", ["monitor", "--address", session.address, "--dest", "org.freedesktop.DBus"])
            defer { watcher.stop() }
            try await watcher.waitForOutput(containing: "The name org.freedesktop.DBus is owned by ")
            try await session.waitForMatchRule(sender: "org.freedesktop.DBus")

            let second = try ReachdProcess(session: session, systemBus: absentSystemBusAddress(), arguments: ["--replace"])
            defer { second.stop() }
            let secondName = try await second.waitUntilServing()
            let firstExit = try await first.process.exit(timeout: .seconds(10))
            #expect(firstExit == 0, "the replaced instance's stderr:\n\(first.standardError)")
            let status = try await session.getStatus()
            #expect(status.standardOutput == "(2, uint32 2)\n", "the new instance answers: \(status.transcript)")

            // One NameOwnerChanged from the old owner straight to the new: never without an owner.
            try await watcher.waitForOutput(containing: "NameOwnerChanged ('\(Self.name)', '\(firstName)', '\(secondName)')")
            let changes = watcher.output.split(separator: "\n").filter { $0.contains("NameOwnerChanged ('\(Self.name)',") }
            #expect(changes == ["/org/freedesktop/DBus: org.freedesktop.DBus.NameOwnerChanged ('\(Self.name)', '\(firstName)', '\(secondName)')"],
                    "\(watcher.output)")
            #expect(second.process.poll() == nil, "the new instance keeps running: \(second.standardError)")
        }
    }

    @Test("a second instance without --replace exits 2, says to use --replace, and leaves the first serving")
    func secondInstanceWithoutReplaceExits() async throws {
        try await withPrivateBus { session in
            try await withReachd(session: session, systemBus: absentSystemBusAddress()) { first in
                let firstName = try await session.owner(of: Self.name)
                let second = try ReachdProcess(session: session, systemBus: absentSystemBusAddress())
                defer { second.stop() }
                let exit = try await second.process.exit(timeout: .seconds(10))
                #expect(exit == 2, "stderr:\n\(second.standardError)")
                #expect(second.standardError.contains("--replace"), "stderr names --replace:\n\(second.standardError)")
                #expect(second.standardError.contains(Self.name), "stderr names the bus name:\n\(second.standardError)")
                #expect(try await session.owner(of: Self.name) == firstName)
                let status = try await session.getStatus()
                #expect(status.standardOutput == "(2, uint32 2)\n", "\(status.transcript)")
            }
        }
    }

    @Test("SIGTERM and SIGINT release the name and exit 0", arguments: [SIGTERM, SIGINT])
    func signalReleasesNameAndExitsZero(_ signal: Int32) async throws {
        try await withPrivateBus { session in
            let reachd = try ReachdProcess(session: session, systemBus: absentSystemBusAddress())
            defer { reachd.stop() }
            try await reachd.waitUntilServing()
            let exit = try await reachd.exitStatus(after: signal)
            #expect(exit == 0, "stderr:\n\(reachd.standardError)")
            #expect(try await session.owner(of: Self.name) == nil, "nobody owns \(Self.name) any more")
        }
    }

    @Test("losing the session bus exits 1, so that systemd restarts reachd")
    func lostSessionBusExitsOne() async throws {
        let session = try PrivateBus()
        defer { session.stop() }
        let reachd = try ReachdProcess(session: session, systemBus: absentSystemBusAddress())
        defer { reachd.stop() }
        try await reachd.waitUntilServing()
        session.stop()
        let exit = try await reachd.process.exit(timeout: .seconds(10))
        #expect(exit == 1, "stderr:\n\(reachd.standardError)")
        // The end of a session is no error: said once, at notice.
        let lines = reachd.standardError.split(separator: "\n")
        #expect(lines.filter { $0.contains("session bus") && !$0.contains("serving ") }.count == 1, "stderr:\n\(reachd.standardError)")
        #expect(lines.contains { $0.contains(" notice reachd: ") && $0.contains("the session bus went away") },
                "stderr:\n\(reachd.standardError)")
        #expect(!lines.contains { $0.contains(" error ") }, "stderr:\n\(reachd.standardError)")
    }

    @Test("without any system bus reachd still starts, and the kernel's routes answer",
          arguments: [false, true])
    func startsWithoutSystemBus(addressInEnvironment: Bool) async throws {
        try await withPrivateBus { session in
            let reachd = try ReachdProcess(session: session, systemBus: absentSystemBusAddress(),
                                           systemBusInEnvironment: addressInEnvironment)
            defer { reachd.stop() }
            try await reachd.waitUntilServing()
            let properties = try await session.publishedProperties()
            #expect(properties.standardOutput == ReachdProcess.kernelView.busctlLines,
                    "expected \(ReachdProcess.kernelView): \(properties.transcript)\nstderr:\n\(reachd.standardError)")
        }
    }
}
