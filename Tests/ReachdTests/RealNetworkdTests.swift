import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// reachd with the real systemd-networkd as a source (contract 3, §3.3), in network namespaces
/// of its own on a private system bus (Scripts/harness/networkd-netns). reachd runs in the client
/// namespace, where networkd configures a veth from a static `.network`. The kernel's path
/// decides; networkd names the source, and its word about links. Needs root and
/// /lib/systemd/systemd-networkd (Debian's systemd package): without them the test fails and
/// says so rather than being skipped.
@Suite("reachd with a real systemd-networkd in a network namespace", .serialized, .timeLimit(.minutes(3)))
struct RealNetworkdTests {
    static let harness = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Scripts/harness/networkd-netns").path
    static let reachctl = URL(fileURLWithPath: ReachdProcess.executable).deletingLastPathComponent()
        .appendingPathComponent("reachctl").path

    /// The namespaces, their bus and networkd, as `networkd-netns up` made them.
    struct Namespaces {
        let directory: String
        var environment: [String: String]

        func value(_ key: String) throws -> String {
            guard let value = environment[key] else { throw TestFailure("networkd-netns wrote no \(key) in \(directory)/env") }
            return value
        }

        func run(_ action: String) async throws {
            try await runToolChecked(RealNetworkdTests.harness, [action, directory], timeout: .seconds(60))
        }

        var log: String { (try? String(contentsOfFile: directory + "/networkd.log", encoding: .utf8)) ?? "" }
    }

    /// What reachd publishes that networkd has a say in, read with one busctl call.
    struct Seen: Equatable, CustomStringConvertible {
        var status = "i 2", flags = "u 2", interfaceType = "s \"ethernet\"", interface: String
        var backend = "s \"systemd-networkd\"", source = "s \"netlink\"", reason = "s \"\""
        static let names = ["Status", "Flags", "InterfaceType", "Interface", "Backend", "Source", "UnsatisfiedReason"]
        var lines: [String] { [status, flags, interfaceType, interface, backend, source, reason] }
        var description: String { lines.joined(separator: ", ") }

        init(over interface: String) { self.interface = "s \"\(interface)\"" }
        /// Not Reachable for `reason`.
        init(notReachableBecause reason: String) {
            status = "i 0"; flags = "u 0"; interfaceType = "s \"none\""; interface = "s \"\""
            self.reason = "s \"\(reason)\""
        }
        func with(backend: String? = nil, source: String? = nil) -> Seen {
            var copy = self
            if let backend { copy.backend = "s \"\(backend)\"" }
            if let source { copy.source = "s \"\(source)\"" }
            return copy
        }
    }

    static func withReachdOverNetworkd(
        options: [String] = [], prepare: (inout Namespaces) async throws -> Void = { _ in },
        _ body: (Namespaces, ReachdProcess, _ seen: () async throws -> [String]) async throws -> Void
    ) async throws {
        guard geteuid() == 0 else {
            throw TestFailure("this test needs root (it makes network namespaces and runs systemd-networkd in one); run the tests as root, e.g. with sudo -E Scripts/test")
        }
        guard access(Self.harness, X_OK) == 0 else { throw TestFailure("the harness script \(Self.harness) is missing") }
        guard access("/lib/systemd/systemd-networkd", X_OK) == 0 else {
            throw TestFailure("/lib/systemd/systemd-networkd is missing: install Debian's systemd package (Scripts/lib/common.sh lists it)")
        }
        // Short: the bus socket's path must fit a sockaddr_un.
        let directory = "/tmp/rnd-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer {
            // Always, even after a failed up (it is safe twice): namespaces and processes go.
            if let down = try? ChildProcess(Self.harness, ["down", directory]) { down.waitBlocking(); down.removeOutput() }
            try? FileManager.default.removeItem(atPath: directory)
        }
        let up = try await runTool(Self.harness, options + ["up", directory], timeout: .seconds(60))
        var namespaces = Namespaces(directory: directory, environment: [:])
        guard up.succeeded else {
            throw TestFailure("networkd-netns up failed (is `ip netns add` allowed here?): \(up.transcript)\nnetworkd.log:\n\(namespaces.log.suffix(3000))")
        }
        namespaces.environment = try Self.readEnvironment(directory)
        try await prepare(&namespaces)
        let systemBus = try namespaces.value("SYSTEM_BUS_ADDRESS")
        try await withPrivateBus { session in
            try await withReachd(session: session, systemBus: systemBus,
                                 network: .named(try namespaces.value("CLIENT_NETNS"))) { reachd in
                try await body(namespaces, reachd) {
                    try await runToolChecked("busctl", ["--address=\(session.address)", "get-property",
                                                        ReachdProcess.busName, ReachdProcess.path, ReachdProcess.interface] + Seen.names)
                        .standardOutput.split(separator: "\n").map(String.init)
                }
            }
        }
    }

    static func readEnvironment(_ directory: String) throws -> [String: String] {
        let text = try String(contentsOfFile: directory + "/env", encoding: .utf8)
        var environment: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            environment[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return environment
    }

    static func expect(_ expected: Seen, within timeout: Duration = .seconds(15), after what: String, reachd: ReachdProcess,
                       namespaces: Namespaces, seen: () async throws -> [String]) async throws {
        var last: [String] = []
        do {
            try await eventually(timeout: timeout, pollingEvery: .milliseconds(100), "after \(what) reachd publishes \(expected)") {
                last = try await seen()
                return last == expected.lines
            }
        } catch {
            throw TestFailure("after \(what) reachd publishes \(last.joined(separator: ", ")), not \(expected)\nreachd:\n\(reachd.standardError.suffix(4000))\nnetworkd:\n\(namespaces.log.suffix(2000))")
        }
    }

    @Test("a static .network → Reachable over ethernet, Backend systemd-networkd; the link down → no-link, up → back; reachctl wait -i IF:online by networkd's word")
    func followsRealNetworkd() async throws {
        try await Self.withReachdOverNetworkd { namespaces, reachd, seen in
            let link = try namespaces.value("CLIENT_IF")
            func expect(_ expected: Seen, after what: String) async throws {
                try await Self.expect(expected, after: what, reachd: reachd, namespaces: namespaces, seen: seen)
            }
            let session = ["DBUS_SESSION_BUS_ADDRESS": reachd.session.address, "LANG": "C", "LC_ALL": "C"]
            try await expect(Seen(over: link), after: "start-up")
            let details = try await runToolChecked("busctl", ["--address=\(reachd.session.address)", "get-property",
                                                              ReachdProcess.busName, ReachdProcess.path, ReachdProcess.interface, "Details"])
            #expect(details.standardOutput.contains("\"networkd-online\" s \"online\""), "\(details.standardOutput)")
            #expect(details.standardOutput.contains("\"networkd-link-online\" a{ss} 1 \"\(link)\" \"online\""), "\(details.standardOutput)")

            // Nobody checks connectivity here, yet networkd says the link is online: that is the link's `online`.
            // reachctl in reachd's namespace: a reachctl elsewhere would not use this reachd.
            let (tool, onlineArguments) = reachd.inItsNamespace(Self.reachctl, ["wait", "-i", "\(link):online", "--timeout", "10"])
            let online = try await runTool(tool, onlineArguments, environment: session)
            #expect(online.status == 0, "\(online.transcript)")

            try await namespaces.run("link-down")
            try await expect(Seen(notReachableBecause: "no-link"), after: "the link set down")
            // The kernel's word (the route gone) and networkd's (the link offline) arrive separately.
            try await eventually(timeout: .seconds(10), "Details say networkd has the link offline") {
                try await runToolChecked("busctl", ["--address=\(reachd.session.address)", "get-property", ReachdProcess.busName,
                                                    ReachdProcess.path, ReachdProcess.interface, "Details"])
                    .standardOutput.contains("\"networkd-link-online\" a{ss} 1 \"\(link)\" \"offline\"")
            }
            let (_, offlineArguments) = reachd.inItsNamespace(Self.reachctl, ["wait", "-i", "\(link):online", "--timeout", "0"])
            let offline = try await runTool(tool, offlineArguments, environment: session)
            #expect(offline.status == 1, "networkd says offline: \(offline.transcript)")
            #expect(offline.standardError.contains("interface \(link) is offline (systemd-networkd)"), "\(offline.transcript)")

            try await namespaces.run("link-up")
            try await expect(Seen(over: link), after: "the link set up again")
        }
    }

    @Test("a required link networkd still configures (DHCP nobody answers) → connecting; set down → no-link, though networkd still says configuring; up → connecting")
    func connectingOnlyWithCarrier() async throws {
        try await Self.withReachdOverNetworkd(options: ["--dhcp"]) { namespaces, reachd, seen in
            func expect(_ expected: Seen, after what: String) async throws {
                try await Self.expect(expected, after: what, reachd: reachd, namespaces: namespaces, seen: seen)
            }
            try await expect(Seen(notReachableBecause: "connecting"), after: "start-up with DHCP unanswered")
            try await namespaces.run("link-down")
            try await expect(Seen(notReachableBecause: "no-link"), after: "the link set down")
            // networkd's word about the downed link (configuring, carrier off) arrives after the
            // kernel's; the reason must stay no-link once it is in.
            try await Task.sleep(for: .seconds(2))
            let settled = try await seen()
            #expect(settled == Seen(notReachableBecause: "no-link").lines,
                    "2 s after the link went down: \(settled)\nnetworkd:\n\(namespaces.log.suffix(2000))")
            try await namespaces.run("link-up")
            try await expect(Seen(notReachableBecause: "connecting"), after: "the link set up again")
        }
    }

    @Test("systemd-networkd stopped → Backend netlink and no ReachabilityChanged; started again → systemd-networkd, still no ReachabilityChanged")
    func networkdLeavingFlapsNothing() async throws {
        try await Self.withReachdOverNetworkd { namespaces, reachd, seen in
            let link = try namespaces.value("CLIENT_IF")
            func expect(_ expected: Seen, after what: String) async throws {
                try await Self.expect(expected, after: what, reachd: reachd, namespaces: namespaces, seen: seen)
            }
            try await expect(Seen(over: link), after: "start-up")
            let monitor = try await ReachdSignalMonitor(session: reachd.session)
            defer { monitor.stop() }

            try await namespaces.run("stop-networkd")
            try await expect(Seen(over: link).with(backend: "netlink"), after: "networkd stopped")
            try await namespaces.run("start-networkd")
            try await expect(Seen(over: link), after: "networkd started again")
            // The monitor heard the Backend go and come back (so it would have heard a ReachabilityChanged).
            try await eventually("gdbus monitor saw Backend change twice:\n\(monitor.output)") {
                monitor.signals.filter { if case .propertiesChanged(let changed) = $0 { changed["Backend"] != nil } else { false } }
                    .count >= 2
            }
            #expect(!monitor.signals.contains { if case .reachabilityChanged = $0 { true } else { false } },
                    "no ReachabilityChanged while networkd left and came back: \(monitor.signals)")
        }
    }

    @Test("networkd says offline (its link has no address) while the kernel routes over an uplink it does not manage: Reachable, netlink-override, logged once")
    func unmanagedUplinkOverridesOffline() async throws {
        try await Self.withReachdOverNetworkd(options: ["--no-address"]) { namespaces, reachd, seen in
            func expect(_ expected: Seen, after what: String) async throws {
                try await Self.expect(expected, after: what, reachd: reachd, namespaces: namespaces, seen: seen)
            }
            // networkd's link is up with carrier but has no route: no-route, not no-link.
            try await expect(Seen(notReachableBecause: "no-route"), after: "start-up")
            try await namespaces.run("add-unmanaged-uplink")
            let uplink = try Self.readEnvironment(namespaces.directory)["UNMANAGED_IF"] ?? "?"
            try await expect(Seen(over: uplink).with(source: "netlink-override"), after: "an unmanaged uplink added")
            #expect(try await runToolChecked(Self.harness, ["online-state", namespaces.directory]).standardOutput
                .trimmingCharacters(in: .whitespacesAndNewlines) == "offline")
            let said = reachd.standardError.components(separatedBy: "systemd-networkd says offline but the kernel routes").count - 1
            #expect(said == 1, "the override is logged once:\n\(reachd.standardError)")
            #expect(reachd.standardError.contains("over \(uplink) (not managed by systemd-networkd)"), "\(reachd.standardError)")
        }
    }
}
