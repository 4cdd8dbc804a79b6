import Foundation
import ReachdDBus
import ReachdTestSupport
import Testing

/// Each daemon back end hears only its own daemon's name. On main d31f781, once `net.connman`
/// appeared the NetworkManager back end took the bus's `NameOwnerChanged` about it for its own
/// and called NetworkManager's `GetAll` every 5 s, forever, with nobody owning that name.
@Suite("A daemon's name reaches only its own back end", .timeLimit(.minutes(2)))
struct OtherDaemonNamesTests {
    /// dbus-monitor's output cut into messages: each begins at an unindented line.
    static func messages(_ text: String) -> [String] {
        var result: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("method call") || line.hasPrefix("error") || line.hasPrefix("signal")
                || line.hasPrefix("method return") || result.isEmpty {
                result.append(String(line))
            } else {
                result[result.count - 1] += "\n" + line
            }
        }
        return result
    }

    /// A method call meant for NetworkManager, whichever way it is addressed.
    static func isNetworkManagerCall(_ message: String) -> Bool {
        message.hasPrefix("method call") && (message.contains("destination=org.freedesktop.NetworkManager ")
            || message.contains("path=/org/freedesktop/NetworkManager")
            || (message.contains("interface=org.freedesktop.DBus.Properties") && message.contains("\"org.freedesktop.NetworkManager")))
    }

    @Test("net.connman appearing and leaving three times, with no NetworkManager, has reachd make no call to NetworkManager and run no timer for it")
    func connmanChurnCallsNoNetworkManager() async throws {
        try await withPrivateBus(.system) { system in
            try await withPrivateBus { session in
                let monitor = try BackgroundTool("dbus-monitor", ["--address", system.address, "type='method_call'"])
                defer { monitor.stop() }
                try await monitor.waitForOutput(containing: "NameLost")
                try await withReachd(session: session, systemBus: system.address, arguments: ["--log-level", "info"]) { reachd in
                    for round in 1...3 {
                        // A stand-in that owns ConnMan's name and exports nothing: ConnMan's back end
                        // asks it (and retries), which shows the monitor sees reachd's calls.
                        let standIn = try await Connection.open(address: system.address)
                        let standInName = try #require(await standIn.uniqueName)
                        #expect(try await standIn.requestName("net.connman") == .primaryOwner)
                        try await eventually("reachd asked the stand-in for ConnMan's properties (round \(round))") {
                            Self.messages(monitor.standardOutput).contains {
                                $0.contains("destination=\(standInName) ") && $0.contains("member=GetProperties")
                            }
                        }
                        try await Task.sleep(for: .milliseconds(300))
                        await standIn.close()
                        try await Task.sleep(for: .milliseconds(300))
                    }
                    // The old defect retried every 100 ms, then up to every 5 s: 6 s show it.
                    try await Task.sleep(for: .seconds(6))
                    let calls = Self.messages(monitor.standardOutput)
                    let toNetworkManager = calls.filter(Self.isNetworkManagerCall)
                    #expect(toNetworkManager.isEmpty, "calls for NetworkManager, which is not on the bus:\n\(toNetworkManager.joined(separator: "\n"))")
                    // ConnMan's calls went to the stand-in's unique name, never to the well-known one.
                    #expect(!calls.contains { $0.contains("destination=net.connman ") }, "\(calls)")
                    #expect(!reachd.standardError.contains("NetworkManager is on the bus"), "\(reachd.standardError)")
                    #expect(reachd.standardError.components(separatedBy: "ConnMan is on the bus as").count - 1 == 3,
                            "\(reachd.standardError)")
                }
            }
        }
    }
}
