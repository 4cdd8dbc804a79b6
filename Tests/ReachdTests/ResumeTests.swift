import Foundation
import ReachdTestSupport
import Testing

/// Waking from sleep: whatever happened while the machine slept, reachd looks again.
/// logind's `PrepareForSleep(false)` (python-dbusmock's logind template on the private
/// system bus) has NetworkManager read afresh, once at wake and once more 5 s later.
@Suite("Resume from sleep", .timeLimit(.minutes(2)))
struct ResumeTests {
    @Test("PrepareForSleep(false) re-reads NetworkManager: a change it never announced is published")
    func resumeReadsNetworkManagerAgain() async throws {
        try await withReachdOverWiFi(arguments: ["--log-level", "info"]) { session, mock, reachd, monitor in
            let logind = try ChildProcess("/usr/bin/python3", ["-m", "dbusmock", "--system", "--template", "logind"],
                                          environment: ["DBUS_SYSTEM_BUS_ADDRESS": mock.bus.address],
                                          unsetting: ["PYTHONPATH", "PYTHONHOME"])
            defer { logind.stop(SIGKILL) }
            try await eventually(timeout: .seconds(20), "dbusmock owns org.freedesktop.login1") {
                try await mock.bus.owner(of: "org.freedesktop.login1") != nil
            }
            // While the machine "slept", NetworkManager went DISCONNECTED and the signal was lost.
            try await mock.call(NetworkManagerMock.manager, NetworkManagerMock.mockInterface, "AddMethod", "sssss",
                                NetworkManagerMock.mockInterface, "ForgetToAnnounce", "", "",
                                "import dbus\nself.props['org.freedesktop.NetworkManager']['State'] = dbus.UInt32(20)")
            try await mock.call(NetworkManagerMock.manager, NetworkManagerMock.mockInterface, "ForgetToAnnounce")
            try await Task.sleep(for: .milliseconds(500))
            #expect(monitor.signals.isEmpty, "nothing was announced, so reachd knows nothing yet")

            try await runToolChecked("busctl", [
                "--address=\(mock.bus.address)", "call", "org.freedesktop.login1", "/org/freedesktop/login1",
                "org.freedesktop.DBus.Mock", "EmitSignal", "sssav", "org.freedesktop.login1.Manager",
                "PrepareForSleep", "b", "1", "b", "false"])
            let expected = NetworkManagerMockTests.offline.signals(after: NetworkManagerMockTests.wifi)
            try await monitor.waitForSignals(count: expected.count)
            #expect(try await session.publishedProperties().standardOutput == NetworkManagerMockTests.offline.busctlLines)
            try await eventually(timeout: .seconds(15), "the second round, 5 s after wake, is logged") {
                reachd.standardError.contains("resume: resynchronising (5 s after wake)")
            }
            #expect(reachd.standardError.contains("resume: resynchronising (at wake)"))
        }
    }
}
