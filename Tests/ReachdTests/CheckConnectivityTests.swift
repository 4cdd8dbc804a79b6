import ReachdTestSupport
import Testing

/// `CheckConnectivity()`: NetworkManager's check, run now, answered in reachd's words;
/// `NotSupported` where there is no NetworkManager to ask.
@Suite("CheckConnectivity", .timeLimit(.minutes(1)))
struct CheckConnectivityTests {
    static func call(_ session: PrivateBus) async throws -> ToolResult {
        try await session.gdbus("call", "--dest", ReachdProcess.busName, "--object-path", ReachdProcess.path,
                                "--method", ReachdProcess.interface + ".CheckConnectivity")
    }

    @Test func withoutNetworkManagerItIsNotSupported() async throws {
        try await withPrivateBus { session in
            try await withReachd(session: session, systemBus: absentSystemBusAddress()) { _ in
                let result = try await Self.call(session)
                #expect(!result.succeeded)
                #expect(result.standardError.contains("org.freedesktop.DBus.Error.NotSupported"), "\(result.transcript)")
            }
        }
    }

    @Test func networkManagersAnswerIsReturnedInReachdsWords() async throws {
        try await withReachdOverWiFi { session, mock, _, _ in
            // The template has no CheckConnectivity: give it one that finds a portal.
            try await mock.call(NetworkManagerMock.manager, NetworkManagerMock.mockInterface, "AddMethod", "sssss",
                                NetworkManagerMock.name, "CheckConnectivity", "", "u", "ret = dbus.UInt32(2)")
            let result = try await Self.call(session)
            #expect(result.standardOutput == "('portal',)\n", "\(result.transcript)")
        }
    }
}
