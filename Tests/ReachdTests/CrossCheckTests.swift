import Foundation
import ReachdTestSupport
import Testing

/// NetworkManager checked against the kernel (contract 2 §1, docs/administrators/sources.md, "When
/// NetworkManager and the kernel disagree"), end to end: python-dbusmock's NetworkManager says one thing while
/// reachd's own namespace routes the Internet over `rv0` (default via 192.0.2.1), a link the
/// mock knows nothing of unless a test adds a device for it.
@Suite("NetworkManager checked against the kernel", .timeLimit(.minutes(3)))
struct CrossCheckTests {
    /// What reachd publishes that these tests look at.
    struct Seen: Equatable, CustomStringConvertible {
        var status: Int32
        var flags: UInt32
        var interface: String
        var source: String
        var reason: String
        var description: String { "status \(status) flags 0x\(String(flags, radix: 16)) '\(interface)' source \(source) reason '\(reason)'" }
    }

    struct Lab {
        let session: PrivateBus
        let system: PrivateBus
        let reachd: ReachdProcess

        func seen() async throws -> Seen {
            let result = try await runToolChecked("busctl", [
                "--address=\(session.address)", "get-property", ReachdProcess.busName, ReachdProcess.path,
                ReachdProcess.interface, "Status", "Flags", "Interface", "Source", "UnsatisfiedReason"])
            let lines = result.standardOutput.split(separator: "\n").map { line in
                String(line.split(separator: " ", maxSplits: 1).last ?? "").replacingOccurrences(of: "\"", with: "")
            }
            guard lines.count == 5, let status = Int32(lines[0]), let flags = UInt32(lines[1]) else {
                throw TestFailure("unexpected busctl output: \(result.transcript)")
            }
            return Seen(status: status, flags: flags, interface: lines[2], source: lines[3], reason: lines[4])
        }

        /// `busctl get-property … Details` as printed: `a{sv} 9 "nm-state" u 20 …`.
        func details() async throws -> String {
            try await runToolChecked("busctl", ["--address=\(session.address)", "get-property", ReachdProcess.busName,
                                                ReachdProcess.path, ReachdProcess.interface, "Details"]).standardOutput
        }

        /// `ip ARGUMENTS…` in reachd's network namespace.
        func ip(_ arguments: String...) async throws {
            try await runToolChecked("/usr/bin/nsenter", ["--net=/proc/\(reachd.pid)/ns/net", "ip"] + arguments)
        }

        /// Waits until reachd publishes `expected`. Tests that time a change read the clock
        /// themselves, before the action that causes it.
        func waitFor(_ expected: Seen, timeout: Duration = .seconds(10)) async throws {
            var last: Seen?
            try await eventually(timeout: timeout, "reachd publishes \(expected); last seen \(last.map { "\($0)" } ?? "nothing")\n\(reachd.standardError)") {
                last = try await seen()
                return last == expected
            }
        }

        /// Checks that `expected` is still published after `duration`.
        func stays(_ expected: Seen, for duration: Duration) async throws {
            try await Task.sleep(for: duration)
            #expect(try await seen() == expected, "\(reachd.standardError)")
        }
    }

    /// Longer than the default 1 s, so that "an override ends at once" stays far from "after
    /// the delay" on a loaded machine.
    static let delay = Duration.milliseconds(3000)
    static let overRV0 = Seen(status: 2, flags: 0x2, interface: "rv0", source: "netlink-override", reason: "")

    /// reachd in its own namespace, watching a mock NetworkManager set up by `setUp` first.
    func withLab(arguments: [String] = [], parameters: String? = nil,
                 setUp: @Sendable (NetworkManagerMock) async throws -> Void = { _ in },
                 _ body: (Lab, NetworkManagerMock) async throws -> Void) async throws {
        let system = try PrivateBus(.system)
        defer { system.stop() }
        let session = try PrivateBus(.session)
        defer { session.stop() }
        let mock = try await NetworkManagerMock(on: system, parameters: parameters)
        defer { mock.stop() }
        try await setUp(mock)
        try await withReachd(session: session, systemBus: system.address, network: .privateWithDefaultRoute,
                             arguments: ["--override-delay-ms", "3000"] + arguments) { reachd in
            try await body(Lab(session: session, system: system, reachd: reachd), mock)
        }
    }

    @Test("NetworkManager DISCONNECTED while the kernel routes over a link it does not know: Reachable after the delay, netlink-override (R8)",
          arguments: [UInt32(20), 50, 0])
    func unmanagedUplinkIsReachableAfterTheDelay(state: UInt32) async throws {
        try await withLab { lab, mock in
            // Connected first (R6: NetworkManager's reachability, over the kernel's rv0).
            try await lab.waitFor(Seen(status: 2, flags: 0x2, interface: "rv0", source: "networkmanager-refined", reason: ""))
            let monitor = try await ReachdSignalMonitor(session: lab.session)
            defer { monitor.stop() }
            let changed = ContinuousClock.now
            try await mock.setState(state)
            try await lab.waitFor(Self.overRV0)
            let took = ContinuousClock.now - changed
            #expect(took >= Self.delay, "the disagreement held for the delay first: \(took)")
            // NetworkManager's word first, then the override: exactly two ReachabilityChanged.
            // busctl may read the new value before gdbus monitor has printed the signal.
            func changes() -> [ReachdSignal] { monitor.signals.filter { if case .reachabilityChanged = $0 { true } else { false } } }
            try await eventually("gdbus monitor has printed the override's ReachabilityChanged:\n\(monitor.output)") { changes().count >= 2 }
            #expect(changes() == [.reachabilityChanged("(0, uint32 0)"), .reachabilityChanged("(2, uint32 2)")], "\(monitor.signals)")
            let details = try await lab.details()
            #expect(details.contains(#""override-rule" s "R8""#), "\(details)")
            #expect(details.contains(#""nm-state" u \#(state)"#), "\(details)")
            #expect(details.contains(#""path-device-controlled" b false"#), "\(details)")
            #expect(lab.reachd.standardError.contains("NetworkManager says"), "one notice line: \(lab.reachd.standardError)")
            // NetworkManager connected again: the override ends at once. Timed from before the
            // change, a way back that waited for the delay would take at least the delay.
            let connected = ContinuousClock.now
            try await mock.setState(70)
            try await lab.waitFor(Seen(status: 2, flags: 0x2, interface: "rv0", source: "networkmanager-refined", reason: ""))
            let back = ContinuousClock.now - connected
            #expect(back < Self.delay, "an override ends at once: \(back)")
            #expect(lab.reachd.standardError.contains("override R8 ended"), "\(lab.reachd.standardError)")
        }
    }

    @Test("CONNECTING over rv0, a device NetworkManager manages, is never overridden (R10)")
    func connectingOverAControlledDeviceIsNotOverridden() async throws {
        try await withLab(setUp: { mock in
            // rv0 as NetworkManager's own ethernet device, in IP_CONFIG.
            try await mock.mock("AddEthernetDevice", "ssi", "rv0", "rv0", "70")
            try await mock.setState(40)
        }) { lab, _ in
            let connecting = Seen(status: 0, flags: 0x4, interface: "", source: "networkmanager", reason: "connecting")
            try await lab.waitFor(connecting)
            try await lab.stays(connecting, for: Self.delay * 2)
            #expect(try await lab.details().contains(#""path-device-controlled" b true"#))
        }
    }

    @Test("a kill switch (prohibit default in a rule's table) while NetworkManager says CONNECTED_GLOBAL: Not Reachable, blocked (R4); back at once when it goes")
    func killSwitchIsBlocked() async throws {
        try await withLab { lab, _ in
            try await lab.waitFor(Seen(status: 2, flags: 0x2, interface: "rv0", source: "networkmanager-refined", reason: ""))
            // The rule alone changes nothing (table 100 is empty); the prohibit route blocks.
            // Timed from before it is added: the time ip takes to exit only lengthens `took`.
            try await lab.ip("rule", "add", "pref", "100", "lookup", "100")
            let blocked = ContinuousClock.now
            try await lab.ip("route", "add", "prohibit", "default", "table", "100")
            try await lab.waitFor(Seen(status: 0, flags: 0, interface: "", source: "netlink-override", reason: "blocked"))
            let took = ContinuousClock.now - blocked
            #expect(took >= Self.delay, "debounced: \(took)")
            let unblocked = ContinuousClock.now
            try await lab.ip("rule", "del", "pref", "100")
            try await lab.waitFor(Seen(status: 2, flags: 0x2, interface: "rv0", source: "networkmanager-refined", reason: ""))
            let back = ContinuousClock.now - unblocked
            #expect(back < Self.delay, "an override ends at once: \(back)")
        }
    }

    @Test("the default route gone while NetworkManager says CONNECTED_GLOBAL: through the delay Status, Level and Gateways stay one snapshot, then change together (R4)")
    func theOverrideDelayShowsOneSnapshotAtATime() async throws {
        try await withLab { lab, _ in
            try await lab.waitFor(Seen(status: 2, flags: 0x2, interface: "rv0", source: "networkmanager-refined", reason: ""))
            /// Status, Level and Gateways from one GetPath: one reply, so one published set.
            func sample() async throws -> String {
                // From reachd's namespace: GetPath answers no caller of another.
                let result = try await runToolChecked("/usr/bin/nsenter", [
                    "--net=/proc/\(lab.reachd.pid)/ns/net", "busctl", "--address=\(lab.session.address)", "--json=short", "call",
                    ReachdProcess.busName, ReachdProcess.path, ReachdProcess.interface, "GetPath"])
                guard let object = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any],
                      let path = (object["data"] as? [Any])?.first as? [String: Any] else {
                    throw TestFailure("GetPath printed no a{sv}: \(result.transcript)")
                }
                func value(_ name: String) -> Any? { (path[name] as? [String: Any])?["data"] }
                let gateways = (value("Gateways") as? [String]) ?? []
                return "\(value("Status") ?? "?") \(value("Level") ?? "?") \(gateways)"
            }
            let before = try await sample()
            #expect(before.hasPrefix("2 ") && before.contains("192.0.2.1"), "\(before)")
            let removed = ContinuousClock.now
            try await lab.ip("route", "del", "default")
            var seen: [String] = []
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                let now = try await sample()
                if seen.last != now { seen.append(now) }
                if now.hasPrefix("0 ") { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            let took = ContinuousClock.now - removed
            #expect(took >= Self.delay, "debounced: \(took)")
            #expect(seen.count == 2 && seen.first == before && seen.last?.hasPrefix("0 ") == true && seen.last?.hasSuffix(" []") == true,
                    "the set before, then the override's, nothing between: \(seen)")
            #expect(!seen.contains { $0.hasPrefix("2 routable []") }, "never Reachable, routable and no gateway: \(seen)")
        }
    }

    @Test("ASLEEP (networking off) over an intact path is never overridden (R2)")
    func asleepIsNeverOverridden() async throws {
        try await withLab { lab, mock in
            try await mock.setState(10)
            let asleep = Seen(status: 0, flags: 0, interface: "", source: "networkmanager", reason: "disabled")
            try await lab.waitFor(asleep)
            try await lab.stays(asleep, for: Self.delay * 2)
        }
    }

    @Test("--no-override: DISCONNECTED is published as it is, however long the kernel disagrees")
    func noOverrideKeepsNetworkManagersWord() async throws {
        try await withLab(arguments: ["--no-override"], setUp: { try await $0.setState(20) }) { lab, _ in
            let offline = Seen(status: 0, flags: 0, interface: "", source: "networkmanager", reason: "no-route")
            try await lab.waitFor(offline)
            try await lab.stays(offline, for: Self.delay * 2)
        }
    }

    @Test("reachctl status shows the source and, under an override, what NetworkManager says")
    func reachctlShowsTheOverride() async throws {
        try await withLab(setUp: { try await $0.setState(20) }) { lab, _ in
            try await lab.waitFor(Self.overRV0)
            let reachctl = URL(fileURLWithPath: ReachdProcess.executable).deletingLastPathComponent().appendingPathComponent("reachctl").path
            // In reachd's namespace: a reachctl outside it would not use this reachd.
            let (tool, arguments) = lab.reachd.inItsNamespace(reachctl, ["status"])
            let status = try await runTool(tool, arguments, environment: [
                "DBUS_SESSION_BUS_ADDRESS": lab.session.address, "LANG": "C", "LC_ALL": "C"])
            #expect(status.standardOutput.contains("source:       netlink-override"), "\(status.transcript)")
            #expect(status.standardOutput.contains("note:         NetworkManager says DISCONNECTED"), "\(status.transcript)")
        }
    }

    @Test("NetworkManager restarting 6 times over an intact path, with and without an override active, emits no ReachabilityChanged",
          arguments: [UInt32(70), 20])
    func restartsDoNotFlap(state: UInt32) async throws {
        let system = try PrivateBus(.system)
        defer { system.stop() }
        let session = try PrivateBus(.session)
        defer { session.stop() }
        // A restarted NetworkManager appears in the state it left (the mock: from its parameters).
        let parameters = #"{"State": \#(state)}"#
        var mock = try await NetworkManagerMock(on: system, parameters: parameters)
        defer { mock.stop() }
        try await withReachd(session: session, systemBus: system.address, network: .privateWithDefaultRoute) { reachd in
            let lab = Lab(session: session, system: system, reachd: reachd)
            let source = state == 70 ? "networkmanager-refined" : "netlink-override"
            try await lab.waitFor(Seen(status: 2, flags: 0x2, interface: "rv0", source: source, reason: ""))
            let monitor = try await ReachdSignalMonitor(session: session)
            defer { monitor.stop() }
            for round in 1...6 {
                mock.stop()
                try await eventually("NetworkManager left the bus (round \(round))") { try await system.owner(of: NetworkManagerMock.name) == nil }
                try await lab.waitFor(Seen(status: 2, flags: 0x2, interface: "rv0", source: "netlink", reason: ""))
                mock = try await NetworkManagerMock(on: system, parameters: parameters)
                try await lab.waitFor(Seen(status: 2, flags: 0x2, interface: "rv0", source: source, reason: ""))
            }
            try await Task.sleep(for: Self.delay)
            let changes = monitor.signals.filter { if case .reachabilityChanged = $0 { true } else { false } }
            #expect(changes.isEmpty, "no ReachabilityChanged across the restarts: \(monitor.signals)")
        }
    }
}
