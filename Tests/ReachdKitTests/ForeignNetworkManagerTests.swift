import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// A NetworkManager that manages another network namespace is no source for the in-process
/// engine (issue 40, 6; contract 4: never another namespace's answer). Before, a one-shot
/// `reachctl status` in a namespace with no routes, with the host's system-bus socket in reach,
/// printed the host NetworkManager's "Reachable via WiFi": the kernel's view corrected it only
/// after the override delay, which a one-shot answer never waits for.
@Suite("In-process, another namespace's NetworkManager is no source", .timeLimit(.minutes(2)))
struct ForeignNetworkManagerTests {
    @Test("in a namespace with no routes, a NetworkManager whose only device is not a link there: the first answer is the kernel's, not reachable")
    func theFirstAnswerIsTheKernelsNotTheForeignNetworkManagers() async throws {
        try await withPrivateBus(.system) { system in
            let mock = try await NetworkManagerMock(on: system)
            defer { mock.stop() }
            // Connected over WiFi, as the host's NetworkManager was; wlan0 is no link of the new namespace.
            try await mock.mock("AddWiFiDevice", "ssi", "wlan0", "wlan0", "100")
            let environment = ["DBUS_SYSTEM_BUS_ADDRESS": system.address, "REACHD_SERVICE": "", "LANG": "C"]
            let child = try ChildProcess("/usr/bin/unshare", ["--net", "--", Executables.reachctl, "status", "--json"],
                                         environment: environment, unsetting: ["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"])
            defer { child.removeOutput() }
            let status = try await child.exit(timeout: .seconds(60))
            let answer = (try? JSONSerialization.jsonObject(with: Data(child.standardOutput.utf8)) as? [String: Any]) ?? [:]
            #expect(answer["service"] as? String == "in-process", "\(child.standardOutput)\(child.standardError)")
            #expect(answer["status"] as? Int == 0, "not reachable: no route here, whatever the other namespace's NetworkManager says: \(child.standardOutput)")
            #expect(answer["interfaceType"] as? String != "wifi", "\(child.standardOutput)")
            #expect(status == 0, "\(child.standardOutput)\(child.standardError)")

            // The same NetworkManager is a source where its device is a link: the tests' namespace has rv0.
            try await mock.mock("AddEthernetDevice", "ssi", "rv0", "rv0", "100")
            let here = try ChildProcess(Executables.reachctl, ["status", "--json"], environment: environment,
                                        unsetting: ["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"])
            defer { here.removeOutput() }
            _ = try await here.exit(timeout: .seconds(60))
            let ours = (try? JSONSerialization.jsonObject(with: Data(here.standardOutput.utf8)) as? [String: Any]) ?? [:]
            #expect(ours["status"] as? Int == 2, "NetworkManager's Reachable via WiFi, where it manages a link: \(here.standardOutput)\(here.standardError)")
        }
    }
}
