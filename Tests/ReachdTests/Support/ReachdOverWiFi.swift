import ReachdTestSupport
import Testing

/// reachd (with `arguments`) over a NetworkManager connected over Wi-Fi, with an
/// ethernet connection ready to take over; `body` starts once reachd says Wi-Fi.
///
/// The mock's devices do not exist in reachd's namespace (its path leaves by
/// `rv0`), so reachd runs with `--no-override`: these tests are about
/// NetworkManager's mapping and the change path, the cross-check has its own.
func withReachdOverWiFi(
    arguments: [String] = [], network: ReachdProcess.Network = .testNamespace,
    _ body: (PrivateBus, NetworkManagerMock, ReachdProcess, ReachdSignalMonitor) async throws -> Void
) async throws {
    let system = try PrivateBus(.system)
    defer { system.stop() }
    let session = try PrivateBus(.session)
    defer { session.stop() }
    let mock = try await NetworkManagerMock(on: system)
    defer { mock.stop() }
    try await mock.addWiFi()
    try await mock.addEthernet()
    try await mock.setManager("PrimaryConnection", "o", NetworkManagerMock.manager + "/ActiveConnection/wifi0")
    try await mock.setManager("Connectivity", "u", "4")
    try await mock.setState(70)
    try await withReachd(session: session, systemBus: system.address, network: network, arguments: ["--no-override"] + arguments) { reachd in
        #expect(try await session.publishedProperties().standardOutput == NetworkManagerMockTests.wifi.busctlLines)
        let monitor = try await ReachdSignalMonitor(session: session)
        defer { monitor.stop() }
        try await body(session, mock, reachd, monitor)
    }
}
