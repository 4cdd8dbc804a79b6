import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// Which provider answers (contract 4, §2.1 and §3.1): the session bus's reachd, else the system
/// bus's, else the engine in the process, moving down when one leaves and cannot be started
/// again and back up when a nearer one returns; and the engine in-process answering as reachd does.
@Suite("Who answers: the nearest provider, and the same answer from each", .serialized, .timeLimit(.minutes(3)))
struct ProviderOrderTests {
    /// A session bus, a system bus with python-dbusmock's NetworkManager on it, both in the tests'
    /// own network namespace, so that reachd on either and the engine in-process see one network.
    struct Buses {
        let session: PrivateBus
        let system: PrivateBus
        let networkManager: NetworkManagerMock
        var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": session.address, "DBUS_SYSTEM_BUS_ADDRESS": system.address] }

        func sessionReachd() async throws -> ReachdProcess {
            let reachd = try ReachdProcess(session: session, systemBus: system.address)
            try await reachd.waitUntilServing()
            return reachd
        }

        func systemReachd() async throws -> ReachdProcess {
            let reachd = try ReachdProcess(session: system, systemBus: system.address, systemInstance: true)
            try await reachd.waitUntilServing()
            return reachd
        }
    }

    static func withBuses(_ body: (Buses) async throws -> Void) async throws {
        try await withPrivateBus(.system) { system in
            let networkManager = try await NetworkManagerMock(on: system)
            defer { networkManager.stop() }
            try await withPrivateBus { session in
                try await body(Buses(session: session, system: system, networkManager: networkManager))
            }
        }
    }

    @Test("session → system → in-process as each reachd stops, and back as each returns: one update each, with the new service, no Unknown between")
    func failsOverDownAndBackUp() async throws {
        try await Self.withBuses { buses in
            var session: ReachdProcess? = try await buses.sessionReachd()
            var system: ReachdProcess? = try await buses.systemReachd()
            defer { session?.stop(); system?.stop() }
            let app = try ChildProcess(Executables.reachabilityUpdates, [], environment: buses.environment,
                                       unsetting: ["XDG_RUNTIME_DIR", "REACHD_SERVICE"])
            defer { app.stop(SIGKILL); app.removeOutput() }
            func updates() -> [String] { app.standardOutput.split(separator: "\n").map(String.init).filter { $0.hasPrefix("service=") } }
            /// The updates after the `before`th (counted before the step): one, from `service`.
            func expectNext(_ service: String, after step: String, from before: Int) async throws {
                try await eventually(timeout: .seconds(20), "after \(step), an update from \(service):\n\(app.standardOutput)") {
                    updates().dropFirst(before).contains { $0.hasPrefix("service=\(service) ") }
                }
                try await Task.sleep(for: .milliseconds(300))  // room for a wrong extra update
                let new = Array(updates().dropFirst(before))
                #expect(new.count == 1 && new[0].hasPrefix("service=\(service) status=2 "),
                        "after \(step): exactly one update, from \(service), Reachable: \(new)")
            }
            try await eventually(timeout: .seconds(20), "the session's reachd answers:\n\(app.standardOutput)") {
                updates().first?.hasPrefix("service=session status=2 ") == true
            }
            #expect(updates().count == 1, "\(updates())")

            var before = updates().count
            session?.stop(); session = nil
            try await expectNext("system", after: "the session's reachd stopped (not activatable)", from: before)
            before = updates().count
            system?.stop(); system = nil
            try await expectNext("in-process", after: "the system's reachd stopped too", from: before)
            before = updates().count
            system = try await buses.systemReachd()
            try await expectNext("system", after: "the system's reachd back", from: before)
            before = updates().count
            session = try await buses.sessionReachd()
            try await expectNext("session", after: "the session's reachd back", from: before)
            #expect(!updates().contains { $0.contains("status=-1") }, "never Unknown on the way: \(updates())")
        }
    }

    @Test("the engine in-process and reachd give equal Status, Flags, Level, Interface, InterfaceType and UnsatisfiedReason over NetworkManager's states")
    func inProcessEqualsReachd() async throws {
        try await Self.withBuses { buses in
            let mock = buses.networkManager
            // NetworkManager manages rv0, the tests' namespace's uplink, as its primary connection.
            let device = NetworkManagerMock.manager + "/Devices/rv0"
            try await mock.mock("AddEthernetDevice", "ssi", "rv0", "rv0", "100")
            try await mock.call(device, NetworkManagerMock.properties, "Set", "ssv", NetworkManagerMock.name + ".Device.Wired", "Carrier", "b", "true")
            let reply = try await mock.call(NetworkManagerMock.manager + "/Settings", NetworkManagerMock.name + ".Settings", "AddConnection",
                                            "a{sa{sv}}", "1", "connection", "3", "id", "s", "Wired rv0", "type", "s", "802-3-ethernet",
                                            "uuid", "s", "7d3c2a1b-0e4f-4a5b-9c8d-1e2f3a4b5c6d")
            try await mock.mock("AddActiveConnection", "assssu", "1", device, unquoted(reply, type: "o"), "/", "rv0", "2")
            try await mock.setManager("PrimaryConnection", "o", NetworkManagerMock.manager + "/ActiveConnection/rv0")
            let reachd = try await buses.sessionReachd()
            defer { reachd.stop() }
            let environment = buses.environment.merging(["LANG": "C"]) { $1 }
            let overBus = try BackgroundTool(Executables.reachctl, ["watch", "--json", "--service", "session"], environment: environment)
            let inProcess = try BackgroundTool(Executables.reachctl, ["watch", "--json", "--service", "in-process"], environment: environment)
            defer { overBus.stop(); inProcess.stop() }
            let compared = ["status", "flags", "level", "interface", "interfaceType", "unsatisfiedReason"]
            func last(_ tool: BackgroundTool) -> [String: String] {
                guard let line = tool.lines.last,
                      let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return [:] }
                return object.mapValues { "\($0)" }
            }
            func values(_ tool: BackgroundTool) -> [String: String] { last(tool).filter { compared.contains($0.key) } }
            var seen: Set<[String: String]> = []
            for (scenario, state, connectivity, word) in [
                ("connected", 70, 4, "full"), ("behind a portal", 60, 2, "portal"), ("limited", 60, 3, "limited"),
                ("connecting", 40, 1, "none"), ("disconnected", 20, 1, "none"), ("asleep", 10, 1, "none"), ("connected again", 70, 4, "full"),
            ] as [(String, UInt32, UInt32, String)] {
                try await mock.setManager("Connectivity", "u", "\(connectivity)")
                try await mock.setState(state)
                // Both have heard NetworkManager; then the override delay (1 s) passes for both.
                try await eventually(timeout: .seconds(15), "\(scenario): both hear NetworkManager: \(last(overBus)) \(last(inProcess))") {
                    last(overBus)["connectivity"] == word && last(inProcess)["connectivity"] == word
                }
                try await Task.sleep(for: .milliseconds(1500))
                try await eventually(timeout: .seconds(10), "\(scenario): reachd \(values(overBus)), in-process \(values(inProcess))") {
                    values(overBus).count == compared.count && values(overBus) == values(inProcess)
                }
                seen.insert(values(overBus))
            }
            #expect(seen.count >= 3, "the scenarios gave different answers, each the same from both: \(seen)")
        }
    }
}
