import Foundation
import ReachdTestSupport
import Testing

/// reachd against a real NetworkManager managing a veth in network namespaces
/// of its own (Scripts/harness/nm-netns, design section 5). reachd runs in the
/// client namespace, so that while NetworkManager is gone its netlink backend
/// sees that namespace's routes. Needs root and NetworkManager: without them
/// the test fails and says so, as the host-monitor tests do, rather than being
/// skipped (a skipped suite reads as green).
@Suite("reachd over a real NetworkManager in a network namespace", .serialized, .timeLimit(.minutes(2)))
struct RealNetworkManagerTests {
    static let harness = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Scripts/harness/nm-netns").path

    /// The namespaces, their bus and NetworkManager, as `nm-netns up` made them.
    struct Namespaces {
        let directory: String
        let environment: [String: String]

        func value(_ key: String) throws -> String {
            guard let value = environment[key] else { throw TestFailure("nm-netns wrote no \(key) in \(directory)/env") }
            return value
        }

        func run(_ action: String) async throws {
            try await runToolChecked(RealNetworkManagerTests.harness, [action, directory], timeout: .seconds(60))
        }
    }

    /// Makes the namespaces with a real NetworkManager (`nm-netns OPTIONS up`) and runs `body`;
    /// everything goes on every path out.
    static func withNamespaces(options: [String] = ["--no-dns"], _ body: (Namespaces) async throws -> Void) async throws {
        try requireNetworkNamespaceHarness(Self.harness)
        // Short: the bus socket's path must fit a sockaddr_un.
        let directory = "/tmp/rnm-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer {
            // Always, even after a failed up (it is safe twice): namespaces and processes go.
            if let down = try? ChildProcess(Self.harness, ["down", directory]) { down.waitBlocking(); down.removeOutput() }
            try? FileManager.default.removeItem(atPath: directory)
        }
        let up = try await runTool(Self.harness, options + ["up", directory], timeout: .seconds(60))
        guard up.succeeded else {
            let log = (try? String(contentsOfFile: directory + "/nm.log", encoding: .utf8)) ?? ""
            throw TestFailure("nm-netns up failed (is `ip netns add` allowed here?): \(up.transcript)\nnm.log:\n\(log.suffix(3000))")
        }
        let text = try String(contentsOfFile: directory + "/env", encoding: .utf8)
        var environment: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            environment[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        let namespaces = Namespaces(directory: directory, environment: environment)
        try await body(namespaces)
    }

    @Test("connected → 2 over the veth; carrier down → 0, up → 2; networking off → 0, on → 2; NetworkManager killed → the kernel's routes, back → 2")
    func followsRealNetworkManager() async throws {
        try await Self.withNamespaces { namespaces in
            let systemBus = try namespaces.value("SYSTEM_BUS_ADDRESS")
            let clientInterface = try namespaces.value("CLIENT_IF")

            // Written by hand from docs/mapping.md. While connected NetworkManager
            // reports CONNECTED_GLOBAL, Connectivity FULL, Metered GUESS_NO, a
            // primary 802-3-ethernet connection on the veth with a gateway.
            let connected = Published(
                status: 2, flags: 0x2, reachable: true, reachableViaWWAN: false, reachableViaWiFi: true,
                statusString: "Reachable via WiFi", interfaceType: "ethernet", interface: clientInterface, metered: false,
                connectivity: "full", backend: "networkmanager", linkQuality: "good")  // a veth says 10000 Mb/s
            // DISCONNECTED (carrier lost) or ASLEEP (networking off), Connectivity NONE, Metered UNKNOWN.
            let offline = Published(
                status: 0, flags: 0x0, reachable: false, reachableViaWWAN: false, reachableViaWiFi: false,
                statusString: "Not Reachable", interfaceType: "none", interface: "", metered: false,
                connectivity: "none", backend: "networkmanager")
            // NetworkManager gone: the addresses and the default route via the peer stay on the veth.
            let kernel = Published(
                status: 2, flags: 0x2, reachable: true, reachableViaWWAN: false, reachableViaWiFi: true,
                statusString: "Reachable via WiFi", interfaceType: "ethernet", interface: clientInterface, metered: false,
                connectivity: "unknown", backend: "netlink", linkQuality: "good")

            try await withPrivateBus { session in
                try await withReachd(session: session, systemBus: systemBus,
                                     network: .named(try namespaces.value("CLIENT_NETNS"))) { reachd in
                    func expect(_ expected: Published, within timeout: Duration, after what: String) async throws {
                        var last = ""
                        try await eventually(timeout: timeout, pollingEvery: .milliseconds(100),
                                             "after \(what) reachd publishes \(expected); busctl says\n\(last)\nreachd's stderr:\n\(reachd.standardError)") {
                            let properties = try await session.publishedProperties()
                            last = properties.transcript
                            return properties.standardOutput == expected.busctlLines
                        }
                    }
                    try await expect(connected, within: .seconds(10), after: "start-up")
                    // NetworkManager acts on a lost carrier after about 6 s.
                    try await namespaces.run("carrier-down")
                    // No carrier, and a veth with no Internet path is no link an uplink is known by.
                    try await expect(offline.atLevel("none"), within: .seconds(20), after: "carrier-down")
                    try await namespaces.run("carrier-up")
                    try await expect(connected, within: .seconds(20), after: "carrier-up")
                    let nmcli = ["DBUS_SYSTEM_BUS_ADDRESS": systemBus]
                    try await runToolChecked("nmcli", ["networking", "off"], environment: nmcli)
                    try await expect(offline.because("disabled").atLevel("none"), within: .seconds(10), after: "nmcli networking off")
                    try await runToolChecked("nmcli", ["networking", "on"], environment: nmcli)
                    try await expect(connected, within: .seconds(20), after: "nmcli networking on")
                    try await namespaces.run("kill-nm")
                    try await expect(kernel, within: .seconds(10), after: "NetworkManager was killed")
                    try await namespaces.run("start-nm")
                    try await expect(connected, within: .seconds(20), after: "NetworkManager started again")
                }
            }
        }
    }
}

extension RealNetworkManagerTests {
    @Test("carrier lost: reachd says Not Reachable (no-link) while NetworkManager still says CONNECTED_GLOBAL")
    func carrierLossIsSeenBeforeNetworkManager() async throws {
        // A short override delay: NetworkManager acts on a lost carrier after about 4-6 s.
        try await Self.withReachdOverRealNetworkManager(arguments: ["--override-delay-ms", "200"]) { namespaces, reachd, property in
            try await eventually(timeout: .seconds(10), "connected at start") { try await property("Status") == "i 2" }
            try await namespaces.run("carrier-down")
            try await eventually(timeout: .seconds(4), pollingEvery: .milliseconds(50),
                                 "reachd says Not Reachable first:\n\(reachd.standardError)") {
                try await property("Status") == "i 0"
            }
            #expect(try await Self.networkManagerState(namespaces) == "70", "NetworkManager had not noticed yet")
            #expect(try await property("Source") == "s \"netlink-override\"")
            #expect(try await property("UnsatisfiedReason") == "s \"no-link\"")
        }
    }
}

extension RealNetworkManagerTests {
    @Test("an uplink NetworkManager does not manage: NetworkManager says DISCONNECTED, reachd says Reachable over it (netlink-override)")
    func unmanagedUplinkOverridesDisconnected() async throws {
        try await Self.withReachdOverRealNetworkManager(prepare: { try await Self.addUnmanagedUplink($0) }) { namespaces, reachd, property in
            // NetworkManager's connection on its veth, the kernel's path over rdu0: refined.
            try await eventually(timeout: .seconds(15), "refined at start:\n\(reachd.standardError)") {
                try await property("Source") == "s \"networkmanager-refined\""
            }
            #expect(try await property("Interface") == "s \"rdu0\"")
            // NetworkManager loses its link and says DISCONNECTED; the kernel still routes over rdu0.
            try await namespaces.run("carrier-down")
            try await eventually(timeout: .seconds(30), pollingEvery: .milliseconds(200), "NetworkManager says DISCONNECTED") {
                try await Self.networkManagerState(namespaces) == "20"
            }
            try await eventually(timeout: .seconds(10), "reachd overrides it:\n\(reachd.standardError)") {
                try await property("Source") == "s \"netlink-override\""
            }
            #expect(try await property("Status") == "i 2")
            #expect(try await property("Interface") == "s \"rdu0\"")
            #expect(reachd.standardError.contains("NetworkManager says"), "the override is logged")

            // NetworkManager restarted while the override holds: nothing flaps.
            let monitor = try await ReachdSignalMonitor(session: reachd.session)
            defer { monitor.stop() }
            try await namespaces.run("kill-nm")
            try await namespaces.run("start-nm")
            try await eventually(timeout: .seconds(30), pollingEvery: .milliseconds(200), "NetworkManager is back, DISCONNECTED") {
                try await Self.networkManagerState(namespaces) == "20"
            }
            // While it starts up the kernel's word stands (netlink), then the override again.
            let source = try await property("Source")
            #expect(["s \"netlink\"", "s \"netlink-override\""].contains(source), "\(source)")
            #expect(try await property("Status") == "i 2")
            #expect(!monitor.signals.contains { if case .reachabilityChanged = $0 { true } else { false } },
                    "no ReachabilityChanged across the restart: \(monitor.signals)")

            // Networking switched off is the user's word: never overridden.
            try await runToolChecked("nmcli", ["networking", "off"],
                                     environment: ["DBUS_SYSTEM_BUS_ADDRESS": try namespaces.value("SYSTEM_BUS_ADDRESS")])
            try await eventually(timeout: .seconds(10), "ASLEEP is published although rdu0 routes") {
                try await property("UnsatisfiedReason") == "s \"disabled\""
            }
            #expect(try await property("Status") == "i 0")
        }
    }
}

extension RealNetworkManagerTests {
    @Test("a kill switch while NetworkManager says CONNECTED_GLOBAL: Not Reachable, blocked; back when it goes")
    func killSwitchOverridesConnected() async throws {
        try await Self.withReachdOverRealNetworkManager { namespaces, reachd, property in
            let client = try namespaces.value("CLIENT_NETNS")
            try await eventually(timeout: .seconds(15), "connected at start") { try await property("Status") == "i 2" }
            try await runToolChecked("ip", ["-n", client, "route", "add", "prohibit", "default", "table", "100"])
            try await runToolChecked("ip", ["-n", client, "rule", "add", "priority", "100", "table", "100"])
            try await eventually(timeout: .seconds(10), "blocked:\n\(reachd.standardError)") {
                try await property("UnsatisfiedReason") == "s \"blocked\""
            }
            #expect(try await property("Status") == "i 0")
            #expect(try await property("Source") == "s \"netlink-override\"")
            #expect(try await Self.networkManagerState(namespaces) == "70", "NetworkManager knows nothing of ip rules")
            try await runToolChecked("ip", ["-n", client, "rule", "del", "priority", "100", "table", "100"])
            try await eventually(timeout: .seconds(10), "back at once when it goes") { try await property("Status") == "i 2" }
        }
    }
}

extension RealNetworkManagerTests {
    /// reachd (with `arguments`) in the client namespace over the real NetworkManager (nm-netns
    /// `options`), after `prepare` has shaped the namespaces; `body` reads reachd's properties
    /// with `property`.
    static func withReachdOverRealNetworkManager(
        options: [String] = ["--no-dns"], arguments: [String] = [], prepare: (Namespaces) async throws -> Void = { _ in },
        _ body: (Namespaces, ReachdProcess, _ property: (String) async throws -> String) async throws -> Void
    ) async throws {
        try await withNamespaces(options: options) { namespaces in
            try await prepare(namespaces)
            let systemBus = try namespaces.value("SYSTEM_BUS_ADDRESS")
            try await withPrivateBus { session in
                try await withReachd(session: session, systemBus: systemBus,
                                     network: .named(try namespaces.value("CLIENT_NETNS")), arguments: arguments) { reachd in
                    try await body(namespaces, reachd) { name in
                        try await runToolChecked("busctl", ["--address=\(session.address)", "get-property",
                                                            ReachdProcess.busName, ReachdProcess.path, ReachdProcess.interface, name])
                            .standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
                    }
                }
            }
        }
    }

    /// NetworkManager's State, as the harness reads it.
    static func networkManagerState(_ namespaces: Namespaces) async throws -> String {
        try await runToolChecked(harness, ["state", namespaces.directory]).standardOutput
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
