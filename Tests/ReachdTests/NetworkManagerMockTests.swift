import ReachdTestSupport
import Testing

/// reachd publishes what NetworkManager (python-dbusmock's template on a
/// private system bus) says, as docs/mapping.md tabulates
/// it, and announces each change with exactly one PropertiesChanged naming
/// exactly the properties that changed, then one ReachabilityChanged if
/// (Status, Flags) changed; a NetworkManager change that alters nothing
/// published announces nothing. Seen by `busctl get-property`, `gdbus call`
/// and `gdbus monitor`, as users see it.
@Suite("reachd over python-dbusmock's NetworkManager", .timeLimit(.minutes(2)))
struct NetworkManagerMockTests {
    // The expected values, written by hand from docs/mapping.md's tables
    // (NetworkManager backend; TransientConnection 0x1, Reachable 0x2,
    // ConnectionRequired 0x4, InterventionRequired 0x10, IsWWAN 0x40000).
    static let nm = "networkmanager"
    static func row(
        _ status: Int32, _ flags: UInt32, _ reachable: Bool, _ viaWWAN: Bool, _ viaWiFi: Bool, _ statusString: String,
        _ interfaceType: String, _ interface: String, _ metered: Bool, _ connectivity: String, _ backend: String
    ) -> Published {
        Published(status: status, flags: flags, reachable: reachable, reachableViaWWAN: viaWWAN, reachableViaWiFi: viaWiFi,
                  statusString: statusString, interfaceType: interfaceType, interface: interface, metered: metered,
                  connectivity: connectivity, backend: backend)
    }
    //                               Status Flags    Reach  WWAN   WiFi   StatusString          Type        Interface Metered Connectivity
    static let offlineNone     = row(0, 0x0,     false, false, false, "Not Reachable",      "none",     "",      false, "none",    nm)
    static let offline         = row(0, 0x0,     false, false, false, "Not Reachable",      "none",     "",      false, "full",    nm)
    static let wifi            = row(2, 0x2,     true,  false, true,  "Reachable via WiFi", "wifi",     "wlan0", false, "full",    nm)
    static let wifiMetered     = row(2, 0x2,     true,  false, true,  "Reachable via WiFi", "wifi",     "wlan0", true,  "full",    nm)
    static let gsm             = row(1, 0x40002, true,  true,  false, "Reachable via WWAN", "wwan",     "wwan0", true,  "full",    nm)
    static let ethernet        = row(2, 0x2,     true,  false, true,  "Reachable via WiFi", "ethernet", "eth0",  false, "full",    nm)
    static let vpnOverWiFi     = row(2, 0x3,     true,  false, true,  "Reachable via WiFi", "vpn",      "wlan0", false, "full",    nm)
    static let portal          = row(0, 0x16,    false, false, false, "Not Reachable",      "wifi",     "wlan0", false, "portal",  nm).because("portal")
    static let limited         = row(2, 0x2,     true,  false, true,  "Reachable via WiFi", "wifi",     "wlan0", false, "limited", nm)
    static let connecting      = row(0, 0x4,     false, false, false, "Not Reachable",      "none",     "",      false, "full",    nm).because("connecting")
    static let connectingModem = row(0, 0x40004, false, false, false, "Not Reachable",      "none",     "",      true,  "full",    nm).because("connecting")
    static let asleep          = offline.because("disabled")
    static let noPrimary       = row(2, 0x2,     true,  false, true,  "Reachable via WiFi", "other",    "",      false, "full",    nm)
    // reachd's own network namespace: a default route via 192.0.2.1 over veth rv0.
    static let kernel          = row(2, 0x2,     true,  false, true,  "Reachable via WiFi", "ethernet", "rv0",   false, "unknown", "netlink")

    /// One NetworkManager change and what reachd must publish after it.
    struct Step: Sendable {
        let label: String
        let expected: Published
        let change: @Sendable (NetworkManagerHolder) async throws -> Void
    }

    /// The mock can be stopped and started again in the middle of a scenario.
    final class NetworkManagerHolder: @unchecked Sendable {
        // Safe because: the scenario runs its steps one after another on one task.
        var mock: NetworkManagerMock
        init(_ mock: NetworkManagerMock) { self.mock = mock }
    }

    static func manager(_ property: String, _ type: String, _ value: String) -> @Sendable (NetworkManagerHolder) async throws -> Void {
        { try await $0.mock.setManager(property, type, value) }
    }
    static func state(_ state: UInt32) -> @Sendable (NetworkManagerHolder) async throws -> Void {
        { try await $0.mock.setState(state) }
    }
    static let active = NetworkManagerMock.manager + "/ActiveConnection/"

    /// Starting point (before reachd starts): State DISCONNECTED, Connectivity
    /// NONE, PrimaryConnection "/", Metered UNKNOWN; Wi-Fi, ethernet, modem
    /// and VPN connections exist but none is primary.
    static let steps: [Step] = [
        Step(label: "PrimaryConnection set while DISCONNECTED changes nothing", expected: offlineNone,
             change: manager("PrimaryConnection", "o", active + "wifi0")),
        Step(label: "Connectivity FULL while DISCONNECTED changes only Connectivity", expected: offline,
             change: manager("Connectivity", "u", "4")),
        Step(label: "CONNECTED_GLOBAL over Wi-Fi", expected: wifi, change: state(70)),
        Step(label: "Connectivity set to the value it has", expected: wifi, change: manager("Connectivity", "u", "4")),
        Step(label: "StateChanged repeated with the same state", expected: wifi, change: { try await $0.mock.emitStateChanged(70) }),
        Step(label: "a manager property reachd does not use (WwanEnabled)", expected: wifi, change: manager("WwanEnabled", "b", "true")),
        Step(label: "a manager property reachd does not use (Version)", expected: wifi, change: manager("Version", "s", "1.42.4")),
        Step(label: "PrimaryConnectionType set to the primary connection's own type", expected: wifi,
             change: manager("PrimaryConnectionType", "s", "802-11-wireless")),
        Step(label: "Metered GUESS_NO on Wi-Fi, already not metered", expected: wifi, change: manager("Metered", "u", "4")),
        Step(label: "Metered YES changes only Metered, no ReachabilityChanged", expected: wifiMetered, change: manager("Metered", "u", "1")),
        Step(label: "Metered UNKNOWN on Wi-Fi is not metered", expected: wifi, change: manager("Metered", "u", "0")),
        Step(label: "PrimaryConnectionType cleared, the connection's Type still says Wi-Fi", expected: wifi,
             change: manager("PrimaryConnectionType", "s", "")),
        Step(label: "gsm connection on a modem device: WWAN, metered", expected: gsm, change: manager("PrimaryConnection", "o", active + "gsm0")),
        Step(label: "ethernet connection", expected: ethernet, change: manager("PrimaryConnection", "o", active + "eth0")),
        Step(label: "VPN over Wi-Fi: TransientConnection, vpn", expected: vpnOverWiFi, change: manager("PrimaryConnection", "o", active + "vpn0")),
        Step(label: "Wi-Fi again", expected: wifi, change: manager("PrimaryConnection", "o", active + "wifi0")),
        Step(label: "Connectivity PORTAL: ConnectionRequired and InterventionRequired, not reachable", expected: portal,
             change: manager("Connectivity", "u", "2")),
        Step(label: "Connectivity LIMITED is reachable", expected: limited, change: manager("Connectivity", "u", "3")),
        Step(label: "Connectivity FULL changes only Connectivity", expected: wifi, change: manager("Connectivity", "u", "4")),
        Step(label: "ASLEEP", expected: asleep, change: state(10)),
        Step(label: "CONNECTED_GLOBAL after ASLEEP", expected: wifi, change: state(70)),
        Step(label: "DISCONNECTED", expected: offline, change: state(20)),
        Step(label: "CONNECTED_GLOBAL after DISCONNECTED", expected: wifi, change: state(70)),
        Step(label: "DISCONNECTING", expected: offline.because("connecting"), change: state(30)),
        Step(label: "CONNECTED_GLOBAL after DISCONNECTING", expected: wifi, change: state(70)),
        Step(label: "CONNECTED_LOCAL", expected: offline, change: state(50)),
        Step(label: "CONNECTED_GLOBAL after CONNECTED_LOCAL", expected: wifi, change: state(70)),
        Step(label: "CONNECTING: ConnectionRequired", expected: connecting, change: state(40)),
        Step(label: "CONNECTING a gsm connection on a modem: IsWWAN too", expected: connectingModem,
             change: manager("ActivatingConnection", "o", active + "gsm0")),
        Step(label: "CONNECTING, activating connection gone", expected: connecting, change: manager("ActivatingConnection", "o", "/")),
        Step(label: "CONNECTED_SITE over Wi-Fi", expected: wifi, change: state(60)),
        // The kernel's answer has the same (Status, Flags) as Wi-Fi had: PropertiesChanged, no ReachabilityChanged.
        Step(label: "NetworkManager leaves the bus: the netlink backend takes over", expected: kernel, change: { $0.mock.stop() }),
        Step(label: "NetworkManager returns (fresh template: CONNECTED_GLOBAL, no primary connection)", expected: noPrimary,
             change: { holder in holder.mock = try await NetworkManagerMock(on: holder.mock.bus) }),
        Step(label: "the returned NetworkManager's objects appear, none primary yet", expected: noPrimary,
             change: { try await $0.mock.addWiFi() }),
        Step(label: "the returned NetworkManager makes Wi-Fi primary", expected: wifi,
             change: manager("PrimaryConnection", "o", active + "wifi0")),
        // Last, a change whose signals arrive after any stray signal of the steps before.
        Step(label: "Metered YES, closing the record", expected: wifiMetered, change: manager("Metered", "u", "1")),
    ]

    @Test("each NetworkManager situation publishes the mapping table's values with exactly the signals the change calls for")
    func publishesEachSituationWithExactSignals() async throws {
        let system = try PrivateBus(.system)
        defer { system.stop() }
        let session = try PrivateBus(.session)
        defer { session.stop() }
        let holder = NetworkManagerHolder(try await NetworkManagerMock(on: system))
        defer { holder.mock.stop() }
        try await holder.mock.addWiFi()
        try await holder.mock.addEthernet()
        try await holder.mock.addModem()
        try await holder.mock.addVPNOverWiFi()
        try await holder.mock.setState(20)
        try await holder.mock.setManager("Connectivity", "u", "1")

        // The mock's devices are not reachd's links: NetworkManager's mapping as it is, not cross-checked.
        try await withReachd(session: session, systemBus: system.address, arguments: ["--no-override"]) { _ in
            let initial = try await session.publishedProperties()
            #expect(initial.standardOutput == Self.offlineNone.busctlLines, "at start: \(initial.transcript)")
            let monitor = try await ReachdSignalMonitor(session: session)
            defer { monitor.stop() }

            var previous = Self.offlineNone
            var verified = 0  // signals already matched to earlier steps
            for step in Self.steps {
                try await step.change(holder)
                let expected = step.expected.signals(after: previous)
                previous = step.expected
                // A step that changes nothing returns at once; its stray signals, if
                // any, arrive before the next change's and fail that comparison.
                try await monitor.waitForSignals(count: verified + expected.count)
                let seen = Array(monitor.signals.dropFirst(verified))
                #expect(seen == expected, "signals after '\(step.label)' (a stray one of the step before would show here too)")
                let properties = try await session.publishedProperties()
                #expect(properties.standardOutput == step.expected.busctlLines,
                        "after '\(step.label)': expected \(step.expected); busctl says\n\(properties.transcript)")
                let getStatus = try await session.getStatus()
                #expect(getStatus.standardOutput == "(\(step.expected.status), uint32 \(step.expected.flags))\n",
                        "after '\(step.label)': \(getStatus.transcript)")
                if seen != expected { break }
                verified += expected.count
            }
        }
    }

    @Test("--settle-ms: a flap shorter than the settle time announces nothing; a change that holds is announced once, after it")
    func settleTimeSuppressesFlaps() async throws {
        // 6 s: the flap is two python-dbusmock calls, which took over 2 s on a loaded 2-core machine
        // (load average 14), so a 2 s settle time saw the flap as a change that held.
        let settle = Duration.seconds(6)
        try await withReachdOverWiFi(arguments: ["--settle-ms", "6000"]) { session, mock, _, monitor in
            // Down and straight back up: two mock calls, well inside the settle time.
            let flapStarted = ContinuousClock.now
            try await mock.setState(20)
            try await mock.setState(70)
            let flap = ContinuousClock.now - flapStarted
            try #require(flap < settle, "the flap itself took \(flap): the machine is too slow for this test's settle time")
            try await Task.sleep(for: settle + .seconds(1))
            #expect(monitor.signals.isEmpty, "a flap is never announced: \(monitor.signals)")

            let changed = ContinuousClock.now
            try await mock.setState(20)
            let expected = Self.offline.signals(after: Self.wifi)
            try await monitor.waitForSignals(count: expected.count, timeout: settle + .seconds(30))
            // A timer may fire late on a loaded machine, never early.
            #expect(ContinuousClock.now - changed >= settle, "announced only after the change held the settle time")
            #expect(monitor.signals == expected)
            #expect(try await session.publishedProperties().standardOutput == Self.offline.busctlLines)
        }
    }
}
