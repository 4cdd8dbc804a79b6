import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// reachd with the real connmand as a source (contract 5, §5), in network namespaces of its own
/// on a private system bus (Scripts/harness/connman-netns). reachd runs in the client namespace,
/// where ConnMan configures a veth by DHCP from dnsmasq in the peer, and a server there answers
/// ConnMan's online check. Needs root and Debian's connman package (Scripts/lib/common.sh
/// installs it without ever starting it): without them the test fails and says so.
@Suite("reachd with a real connmand in a network namespace", .serialized, .timeLimit(.minutes(4)))
struct RealConnManTests {
    static let harness = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Scripts/harness/connman-netns").path

    /// The namespaces, their bus and connmand, as `connman-netns up` made them.
    struct Namespaces {
        let directory: String
        var environment: [String: String]

        func value(_ key: String) throws -> String {
            guard let value = environment[key] else { throw TestFailure("connman-netns wrote no \(key) in \(directory)/env") }
            return value
        }

        func run(_ action: String) async throws {
            try await runToolChecked(RealConnManTests.harness, [action, directory], timeout: .seconds(90))
        }

        func output(_ action: String) async throws -> String {
            try await runToolChecked(RealConnManTests.harness, [action, directory], timeout: .seconds(30)).standardOutput
        }

        var log: String { (try? String(contentsOfFile: directory + "/connmand.log", encoding: .utf8)) ?? "" }
    }

    /// What reachd publishes that ConnMan has a say in, read with one busctl call.
    struct Seen: Equatable, CustomStringConvertible {
        var status = "i 2", flags = "u 2", interfaceType = "s \"ethernet\"", interface: String
        var backend = "s \"connman\"", source = "s \"connman\"", reason = "s \"\""
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

    /// connmand processes where they would manage interfaces the tests rely on: in the machine's
    /// network namespace or the suite's own (`DaemonsInTheWay`, the rule the harness's `down`
    /// applies too). One in any other namespace (a container's, another clone's suite) manages
    /// that namespace alone, and the suite runs beside it.
    static func connmandsInTheWay() throws -> [DaemonsInTheWay.Found] { try DaemonsInTheWay.find(["connmand"]) }

    static func withReachdOverConnMan(
        options: [String] = [], reachdArguments: [String] = [],
        _ body: (Namespaces, ReachdProcess, _ seen: () async throws -> [String]) async throws -> Void
    ) async throws {
        try await withConnMan(options: options) { namespaces in
            let systemBus = try namespaces.value("SYSTEM_BUS_ADDRESS")
            try await withPrivateBus { session in
                try await withReachd(session: session, systemBus: systemBus, network: .named(try namespaces.value("CLIENT_NETNS")),
                                     arguments: reachdArguments) { reachd in
                    try await body(namespaces, reachd) {
                        try await runToolChecked("busctl", ["--address=\(session.address)", "get-property",
                                                            ReachdProcess.busName, ReachdProcess.path, ReachdProcess.interface] + Seen.names)
                            .standardOutput.split(separator: "\n").map(String.init)
                    }
                }
            }
        }
    }

    /// The namespaces, their private system bus and connmand online (`connman-netns up`), always taken
    /// down afterwards.
    static func withConnMan(options: [String] = [], _ body: (Namespaces) async throws -> Void) async throws {
        guard geteuid() == 0 else {
            throw TestFailure("this test needs root (it makes network namespaces and runs connmand in one); run the tests as root, e.g. with sudo -E Scripts/test")
        }
        guard access(Self.harness, X_OK) == 0 else { throw TestFailure("the harness script \(Self.harness) is missing") }
        guard access("/usr/sbin/connmand", X_OK) == 0 else {
            throw TestFailure("/usr/sbin/connmand is missing: install Debian's connman package without starting it (Scripts/test does, from Scripts/lib/common.sh)")
        }
        let strays = try Self.connmandsInTheWay()
        guard strays.isEmpty else {
            throw TestFailure("a connmand manages interfaces the tests rely on: \(strays); stop it before testing")
        }
        // Short: the bus socket's path must fit a sockaddr_un.
        let directory = "/tmp/rcm-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        defer {
            // Always, even after a failed up (it is safe twice): namespaces and processes go.
            if let down = try? ChildProcess(Self.harness, ["down", directory]) { down.waitBlocking(); down.removeOutput() }
            try? FileManager.default.removeItem(atPath: directory)
        }
        let up = try await runTool(Self.harness, options + ["up", directory], environment: ["CONNMAN_NETNS_TIMEOUT": "90"],
                                   timeout: .seconds(120))
        var namespaces = Namespaces(directory: directory, environment: [:])
        guard up.succeeded else {
            throw TestFailure("connman-netns up failed (is `ip netns add` allowed here?): \(up.transcript)\nconnmand.log:\n\(namespaces.log.suffix(3000))")
        }
        namespaces.environment = try Self.readEnvironment(directory)
        try await body(namespaces)
        let left = try Self.connmandsInTheWay()
        #expect(left.isEmpty, "a connmand was left running in the machine's or the suite's namespace: \(left)")
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

    static func property(_ name: String, _ reachd: ReachdProcess) async throws -> String {
        try await runToolChecked("busctl", ["--address=\(reachd.session.address)", "get-property", ReachdProcess.busName,
                                            ReachdProcess.path, ReachdProcess.interface, name])
            .standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func expect(_ expected: Seen, within timeout: Duration = .seconds(30), after what: String, reachd: ReachdProcess,
                       namespaces: Namespaces, seen: () async throws -> [String]) async throws {
        var last: [String] = []
        do {
            try await eventually(timeout: timeout, pollingEvery: .milliseconds(50), "after \(what) reachd publishes \(expected)") {
                last = try await seen()
                return last == expected.lines
            }
        } catch {
            throw TestFailure("after \(what) reachd publishes \(last.joined(separator: ", ")), not \(expected)\nreachd:\n\(reachd.standardError.suffix(4000))\nconnmand:\n\(namespaces.log.suffix(2000))")
        }
    }

    @Test("ethernet by DHCP with the online check answered → Reachable via ethernet, Connectivity full, Level online; the peer's DHCP and check server gone and the link down → no-link")
    func followsRealConnMan() async throws {
        try await Self.withReachdOverConnMan { namespaces, reachd, seen in
            let link = try namespaces.value("CLIENT_IF")
            try await Self.expect(Seen(over: link), after: "start-up", reachd: reachd, namespaces: namespaces, seen: seen)
            try await eventually(timeout: .seconds(10), "Connectivity full and Level online by ConnMan's own check") {
                let connectivity = try await Self.property("Connectivity", reachd)
                let level = try await Self.property("Level", reachd)
                return connectivity == "s \"full\"" && level == "s \"online\""
            }
            let details = try await Self.property("Details", reachd)
            #expect(details.contains("\"connman-state\" s \"online\""), "\(details)")
            #expect(details.contains("\"connman-service-type\" s \"ethernet\""), "\(details)")
            #expect(details.contains("\"check-source\" s \"connman\""), "\(details)")

            try await namespaces.run("stop-peer-services")
            try await namespaces.run("peer-down")
            try await Self.expect(Seen(notReachableBecause: "no-link"), after: "the peer's DHCP and check server gone and its link down",
                                  reachd: reachd, namespaces: namespaces, seen: seen)
            #expect(try await Self.property("Backend", reachd) == "s \"connman\"")
        }
    }

    @Test("ready (no online check answered) → Reachable, Connectivity not verified: Level below online")
    func readyIsReachableUnverified() async throws {
        try await Self.withReachdOverConnMan(options: ["--no-check"]) { namespaces, reachd, seen in
            let link = try namespaces.value("CLIENT_IF")
            try await Self.expect(Seen(over: link), after: "start-up", reachd: reachd, namespaces: namespaces, seen: seen)
            #expect(try await namespaces.output("state").contains("ready"))
            #expect(try await Self.property("Connectivity", reachd) == "s \"unknown\"")
            let level = try await Self.property("Level", reachd)
            #expect(level == "s \"routable\"" || level == "s \"dns\"", "Level \(level)")
        }
    }

    @Test("no DHCP answer: ConnMan's IPv4LL fallback (169.254/16, default dev scope link) reads Level link, not routable")
    func ipv4LinkLocalIsLink() async throws {
        try await Self.withReachdOverConnMan(options: ["--no-dhcp"]) { namespaces, reachd, seen in
            try await Self.expect(Seen(notReachableBecause: "no-route"), after: "IPv4LL", reachd: reachd, namespaces: namespaces, seen: seen)
            #expect(try await Self.property("Level", reachd) == "s \"link\"")
            let details = try await Self.property("Details", reachd)
            #expect(details.contains("\"connman-ipv4ll\" b true"), "\(details)")
            #expect(details.contains("\"connman-state\" s \"ready\""), "\(details)")
        }
    }

    @Test("connmand stopped → the kernel's word (Backend netlink) within 1 s, and the log says so; started again → ConnMan's")
    func connmandLeavingFallsBackToTheKernel() async throws {
        try await Self.withReachdOverConnMan { namespaces, reachd, seen in
            let link = try namespaces.value("CLIENT_IF")
            try await Self.expect(Seen(over: link), after: "start-up", reachd: reachd, namespaces: namespaces, seen: seen)
            try await namespaces.run("stop-connman")
            let stopped = ContinuousClock.now
            try await eventually(timeout: .seconds(5), pollingEvery: .milliseconds(20), "Backend netlink once connmand is gone") {
                try await Self.property("Backend", reachd) == "s \"netlink\""
            }
            let took = ContinuousClock.now - stopped
            #expect(took < .seconds(1), "reachd followed the kernel \(took) after connmand left the bus")
            #expect(reachd.standardError.contains("ConnMan left the bus: following the kernel's routes"), "\(reachd.standardError.suffix(2000))")
            try await namespaces.run("start-connman")
            try await Self.expect(Seen(over: link), within: .seconds(60), after: "connmand started again",
                                  reachd: reachd, namespaces: namespaces, seen: seen)
        }
    }

    @Test("a kill switch (a blackhole rule above ConnMan's routes) while ConnMan says online: the kernel wins, blocked, Details say R4")
    func killSwitchWins() async throws {
        try await Self.withReachdOverConnMan { namespaces, reachd, seen in
            let link = try namespaces.value("CLIENT_IF")
            try await Self.expect(Seen(over: link), after: "start-up", reachd: reachd, namespaces: namespaces, seen: seen)
            try await namespaces.run("kill-switch")
            try await Self.expect(Seen(notReachableBecause: "blocked").with(source: "netlink-override"), after: "the kill switch",
                                  reachd: reachd, namespaces: namespaces, seen: seen)
            #expect(try await namespaces.output("state").contains("online"), "ConnMan still says online")
            let details = try await Self.property("Details", reachd)
            #expect(details.contains("\"override-rule\" s \"R4\""), "\(details)")
            // reachctl in reachd's namespace says what the service did not follow.
            let reachctl = URL(fileURLWithPath: ReachdProcess.executable).deletingLastPathComponent().appendingPathComponent("reachctl").path
            let (tool, arguments) = reachd.inItsNamespace(reachctl, ["status"])
            let status = try await runTool(tool, arguments, environment: ["DBUS_SESSION_BUS_ADDRESS": reachd.session.address, "LANG": "C", "LC_ALL": "C"])
            #expect(status.standardOutput.contains("note:         ConnMan says online"), "\(status.transcript)")
            try await namespaces.run("no-kill-switch")
            try await Self.expect(Seen(over: link), after: "the kill switch lifted", reachd: reachd, namespaces: namespaces, seen: seen)
        }
    }
}
