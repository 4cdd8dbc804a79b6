import Foundation
import ReachdTestSupport
import Testing

/// `LinkQuality` (Apple's `NWPath.linkQuality`) as a client sees it (docs/mapping.md, "Link
/// quality"): graded from what the link measures, steady while the signal only flutters, and
/// changing at most once every 5 s on one link.
@Suite("LinkQuality from the link's measurements", .timeLimit(.minutes(2)))
struct LinkQualityServiceTests {
    /// `busctl get-property … NAME`'s line: `s "good"`.
    static func property(_ name: String, _ session: PrivateBus) async throws -> String {
        try await runToolChecked("busctl", ["--address=\(session.address)", "get-property", ReachdProcess.busName,
                                            ReachdProcess.path, ReachdProcess.interface, name])
            .standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The `LinkQuality` values announced so far, in order.
    static func announcedQualities(_ monitor: ReachdSignalMonitor) -> [String] {
        monitor.signals.compactMap {
            guard case .propertiesChanged(let changed) = $0 else { return nil }
            return changed["LinkQuality"]
        }
    }

    @Test("Wi-Fi: the access point's Strength grades it; fluttering within the band announces nothing, not even Details; a drop past it is announced once, a rise back no sooner than 5 s later")
    func accessPointStrengthGradesWiFi() async throws {
        try await withReachdOverWiFi { session, mock, reachd, monitor in
            #expect(try await Self.property("LinkQuality", session) == "s \"good\"", "the template's access point has Strength 80")
            let details = try await Self.property("Details", session)
            #expect(details.contains("\"link-signal\" y 80") && details.contains("\"link-signal-source\" s \"networkmanager\""), "\(details)")

            // Within 5 points of good's threshold (55): fading, not a change.
            for strength: UInt8 in [52, 58, 51, 57] {
                try await mock.setAccessPointStrength(strength)
            }
            try await eventually(timeout: .seconds(10), "Details says the last strength") {
                try await Self.property("Details", session).contains("\"link-signal\" y 57")
            }
            try await Task.sleep(for: .milliseconds(500))
            #expect(!monitor.output.contains("PropertiesChanged"), "a signal within the band announces nothing:\n\(monitor.output)")
            #expect(try await Self.property("LinkQuality", session) == "s \"good\"")

            let beforeDrop = ContinuousClock.now
            try await mock.setAccessPointStrength(20)
            try await eventually(timeout: .seconds(10), "minimal is announced: \(monitor.output)") {
                Self.announcedQualities(monitor) == ["<'minimal'>"]
            }
            // Straight back up: the same link changed grade a moment ago.
            try await mock.setAccessPointStrength(90)
            try await eventually(timeout: .seconds(15), "good is announced again: \(monitor.output)") {
                Self.announcedQualities(monitor) == ["<'minimal'>", "<'good'>"]
            }
            let heldFor = ContinuousClock.now - beforeDrop
            #expect(heldFor >= .seconds(5), "two changes of grade on one link came \(heldFor) apart")
            #expect(monitor.signals.allSatisfy {
                if case .propertiesChanged(let changed) = $0 { return Array(changed.keys) == ["LinkQuality"] }
                return false
            }, "only LinkQuality changed: \(monitor.signals)")
            // Nothing is left armed: no hold timer, no polling of the signal.
            try await Task.sleep(for: .seconds(1))
            let calls = try await systemCalls(of: reachd.pid, over: .seconds(3))
            #expect(calls.isEmpty, "system calls while idle after the changes: \(calls.prefix(20))")
        }
    }

    @Test("Ethernet: the kernel's speed for the path's link (a veth says 10000 Mb/s) is good, with the speed in Details")
    func ethernetSpeedGradesTheKernelsPath() async throws {
        let session = try PrivateBus(.session)
        defer { session.stop() }
        try await withReachd(session: session, systemBus: absentSystemBusAddress()) { _ in
            #expect(try await Self.property("Interface", session) == "s \"rv0\"")
            #expect(try await Self.property("LinkQuality", session) == "s \"good\"")
            let details = try await Self.property("Details", session)
            #expect(details.contains("\"link-speed-mbps\" u 10000"), "\(details)")
            #expect(!details.contains("link-signal"), "an Ethernet link has no radio signal: \(details)")
        }
    }
}

extension LinkQualityServiceTests {
    @Test("a modem NetworkManager runs: ModemManager's SignalQuality of the modem its device names (Udi) grades it, and follows its changes")
    func modemManagersSignalGradesACellularPath() async throws {
        let system = try PrivateBus(.system)
        defer { system.stop() }
        let session = try PrivateBus(.session)
        defer { session.stop() }
        let networkManager = try await NetworkManagerMock(on: system)
        defer { networkManager.stop() }
        try await networkManager.addModem()
        let modem = "/org/freedesktop/ModemManager1/Modem/0"
        try await networkManager.call(NetworkManagerMock.manager + "/Devices/modem0", NetworkManagerMock.mockInterface, "AddProperty",
                                      "ssv", NetworkManagerMock.name + ".Device", "Udi", "s", modem)
        // Real NetworkManager lists every device in its Devices; the template's helper does not add this one.
        try await networkManager.call(NetworkManagerMock.manager, NetworkManagerMock.properties, "Set", "ssv", NetworkManagerMock.name,
                                      "Devices", "ao", "1", NetworkManagerMock.manager + "/Devices/modem0")
        try await networkManager.setManager("PrimaryConnection", "o", NetworkManagerMock.manager + "/ActiveConnection/gsm0")
        try await networkManager.setManager("PrimaryConnectionType", "s", "gsm")
        try await networkManager.setState(70)
        // ModemManager has no dbusmock template: its object manager and one modem, as ModemManager exports them.
        let modemManager = try ChildProcess("/usr/bin/python3", ["-m", "dbusmock", "--system", "-m", "org.freedesktop.ModemManager1",
                                                                 "/org/freedesktop/ModemManager1", "org.freedesktop.ModemManager1"],
                                            environment: ["DBUS_SYSTEM_BUS_ADDRESS": system.address], unsetting: ["PYTHONPATH", "PYTHONHOME"])
        defer { modemManager.stop(SIGTERM) }
        try await eventually(timeout: .seconds(20), "dbusmock owns org.freedesktop.ModemManager1") {
            try await system.owner(of: "org.freedesktop.ModemManager1") != nil
        }
        func modemManagerCall(_ path: String, _ interface: String, _ member: String, _ arguments: String...) async throws {
            try await runToolChecked("busctl", ["--address=\(system.address)", "call", "org.freedesktop.ModemManager1",
                                                path, interface, member] + arguments)
        }
        try await modemManagerCall("/org/freedesktop/ModemManager1", "org.freedesktop.DBus.Mock", "AddObject", "ssa{sv}a(ssss)",
                                   modem, "org.freedesktop.ModemManager1.Modem", "2", "SignalQuality", "(ub)", "63", "true",
                                   "State", "i", "11", "0")
        try await withReachd(session: session, systemBus: system.address, arguments: ["--no-override"]) { reachd in
            var seen = ""
            do {
                try await eventually(timeout: .seconds(10), "reachd says WWAN, good") {
                    let type = try await Self.property("InterfaceType", session)
                    let quality = try await Self.property("LinkQuality", session)
                    seen = "\(type) \(quality) \(try await Self.property("Details", session))"
                    return type == "s \"wwan\"" && quality == "s \"good\""
                }
            } catch {
                throw TestFailure("reachd says \(seen)\nreachd:\n\(reachd.standardError.suffix(3000))")
            }
            let details = try await Self.property("Details", session)
            #expect(details.contains("\"link-signal\" y 63") && details.contains("\"link-signal-source\" s \"modemmanager\""), "\(details)")
            try await modemManagerCall(modem, "org.freedesktop.DBus.Properties", "Set", "ssv",
                                       "org.freedesktop.ModemManager1.Modem", "SignalQuality", "(ub)", "18", "true")
            try await eventually(timeout: .seconds(15), "a weak signal: minimal") {
                try await Self.property("LinkQuality", session) == "s \"minimal\""
            }
        }
    }
}
