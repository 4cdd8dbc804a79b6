import Foundation
import ReachdTestSupport
import Testing

/// The change path end to end: what reachd announces when its sources are
/// chatty or slow. The kernel view these tests assume is reachd's own network
/// namespace (`ReachdProcess.Network.privateWithDefaultRoute`): a default
/// route via 192.0.2.1 over `rv0`, and whatever the test does to it.
@Suite("The change path", .timeLimit(.minutes(2)))
struct ChangePathTests {
    typealias Rows = NetworkManagerMockTests
    static let active = NetworkManagerMock.manager + "/ActiveConnection/"

    @Test("--settle-ms 500: kernel address changes every 100 ms do not postpone a NetworkManager change; it is announced once, about 500 ms after it")
    func kernelChatterDoesNotPostponeASettlingChange() async throws {
        try await withReachdOverWiFi(arguments: ["--settle-ms", "500"], network: .privateWithDefaultRoute) { session, mock, reachd, monitor in
            // An address comes and goes on reachd's uplink every 100 ms: each is
            // a kernel change (address and local route) that reachd hears.
            let namespace = "--net=/proc/\(reachd.pid)/ns/net"
            let chatter = Task {
                var add = true
                while !Task.isCancelled {
                    _ = try? await runTool("/usr/bin/nsenter", [namespace, "ip", "address", add ? "add" : "del", "192.0.2.50/24", "dev", "rv0"])
                    add.toggle()
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }
            defer { chatter.cancel() }
            try await Task.sleep(for: .milliseconds(300))

            let changed = ContinuousClock.now
            try await mock.setState(20)
            let expected = Rows.offline.signals(after: Rows.wifi)
            // The kernel keeps talking all along (until the chatter is cancelled below); before
            // the merge point each of its events restarted the settle timer, so the change was
            // never announced and this wait timed out, however long it was.
            try await monitor.waitForSignals(count: expected.count, timeout: .seconds(10))
            let delay = ContinuousClock.now - changed
            #expect(delay >= .milliseconds(500), "held for the settle time first, announced after \(delay)")
            try await Task.sleep(for: .seconds(1))
            #expect(monitor.signals == expected, "announced once, with the kernel still talking")
            chatter.cancel()
            #expect(try await session.publishedProperties().standardOutput == Rows.offline.busctlLines)
        }
    }

    @Test("a NetworkManager GetAll that stalls past its timeout publishes nothing wrong: the last state stands until the retry reads the new one")
    func stalledGetAllKeepsTheLastStateUntilTheRetryAnswers() async throws {
        try await withReachdOverWiFi(network: .privateWithDefaultRoute) { session, mock, reachd, monitor in
            // A new ethernet connection becomes primary, then NetworkManager hangs for
            // 7 s: reachd's GetAll of the new connection times out after 5 s. Before,
            // that read as "the connection vanished" and published InterfaceType other,
            // Interface "". (reachd reads every listed active connection up front, so
            // the new one is not listed in ActiveConnections: it must be asked for.)
            try await mock.mock("AddObject", "ssa{sv}a(ssss)", Self.active + "eth1", NetworkManagerMock.name + ".Connection.Active",
                                "2", "Devices", "ao", "1", NetworkManagerMock.manager + "/Devices/eth0",
                                "Type", "s", "802-3-ethernet", "0")
            try await mock.runWithoutWaiting("SwitchToEthernetThenStall", code: """
                import dbus, time
                self.Set('org.freedesktop.NetworkManager', 'PrimaryConnection', dbus.ObjectPath('\(Self.active)eth1'))
                time.sleep(7)
                """)
            let expected = Rows.ethernet.signals(after: Rows.wifi)
            try await monitor.waitForSignals(count: expected.count, timeout: .seconds(20))
            #expect(monitor.signals == expected, "only the real new state, once NetworkManager answers")
            #expect(try await session.publishedProperties().standardOutput == Rows.ethernet.busctlLines)
            #expect(reachd.standardError.contains("reading NetworkManager failed"), "the failure is logged: \(reachd.standardError)")
        }
    }
}
