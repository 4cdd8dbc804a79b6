import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// Another user's `Release` of a host monitor on the system bus (issue 40, item 5): refused with
/// `NotOwner` and a sentence that says a release was refused, not a read; the monitor stays.
@Suite("another user's Release of a monitor", .serialized, .timeLimit(.minutes(3)))
struct MonitorReleaseTests {
    @Test("another user's Release is refused with NotOwner, saying Release was refused; the monitor stays its owner's")
    func anotherUsersReleaseIsRefused() async throws {
        try await withSystemInstance { bus, _, _ in
            let holder = SystemInstance.repository.appendingPathComponent("Scripts/harness/monitor-holder").path
            let child = try SystemInstance.asUser(SystemInstance.nobody, bus: bus, holder, [bus.address, "1", "1", "192.0.2.7"])
            defer { child.stop(); child.removeOutput() }
            try await eventually(timeout: .seconds(30), "monitor-holder is ready:\n\(child.standardOutput)\(child.standardError)") {
                if child.poll() != nil { throw TestFailure("monitor-holder exited: \(child.standardOutput)\(child.standardError)") }
                return child.standardOutput.contains("ready\n")
            }
            let path = try #require(child.standardOutput.split(separator: " ").first { $0.hasPrefix("/io/reachd/Reachability1/Monitors/") }
                .map { String($0.split(separator: "\n")[0]) }, "\(child.standardOutput)")
            let id = path.split(separator: "/").last.map(String.init) ?? ""
            let release = try await SystemInstance.run(as: SystemInstance.testUser, bus: bus, "/usr/bin/dbus-send",
                                                       ["--bus=\(bus.address)", "--print-reply", "--dest=\(ReachdProcess.busName)", path,
                                                        "io.reachd.Reachability1.Monitor.Release"])
            #expect(!release.succeeded, "\(release.transcript)")
            // Before: "… only its own user may read a monitor", for a call that reads nothing.
            #expect(release.standardError.contains("Error io.reachd.Reachability1.Error.NotOwner: host monitor \(id) belongs to another user: "
                                                   + "Release is refused; only the connection that made a monitor may release it"),
                    "\(release.transcript)")
            #expect(!release.standardError.contains("may read"), "\(release.transcript)")
            // Still there, for its owner.
            let owner = try await SystemInstance.run(as: SystemInstance.nobody, bus: bus, "/usr/bin/busctl",
                                                     ["--address=\(bus.address)", "get-property", ReachdProcess.busName, path,
                                                      "io.reachd.Reachability1.Monitor", "Host"])
            #expect(owner.standardOutput == "s \"192.0.2.7\"\n", "\(owner.transcript)")
        }
    }
}
