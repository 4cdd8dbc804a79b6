import ReachdCore
import Testing

/// Contract 2 §1.4's decision table, row by row: NetworkManager's word against the kernel's
/// paths, first matching row wins; the rows marked ⏱ only once the disagreement has held.
@Suite("NetworkManager checked against the kernel: the decision table R0–R13")
struct ReachabilityDecisionTests {
    // Kernel paths.
    static func path(_ verdict: KernelPath.Verdict, via interface: String = "eth0", medium: LinkMedium = .ethernet,
                     gateway: Bool = true) -> KernelPath {
        KernelPath(verdict: verdict,
                   route: verdict == .noRoute ? nil : RouteLookupResult(
                       type: .unicast, hasGateway: gateway, outgoingInterface: interface, medium: medium,
                       linkIsUp: verdict != .linkDown, isDefaultRoute: true),
                   table: 254, gateway: gateway ? "192.0.2.1" : nil)
    }
    static let eth0 = path(.ok)
    static let wg0 = path(.ok, via: "wg0", medium: .tunnel, gateway: false)
    static let wlan0 = path(.ok, via: "wlan0", medium: .wifi)
    static let blocked = KernelPath(verdict: .blocked)
    static let noRoute = KernelPath.none
    static let eth0Down = path(.linkDown)

    // NetworkManager devices.
    static let eth0Unmanaged = NetworkManagerDevice(type: .ethernet, interface: "eth0", managed: false, state: .unmanaged)
    static let eth0Managed = NetworkManagerDevice(type: .ethernet, interface: "eth0", managed: true, state: .ipConfig)
    static let eth0External = NetworkManagerDevice(type: .ethernet, interface: "eth0", managed: true, state: .activated,
                                                   isExternal: true)
    static let wlan0Device = NetworkManagerDevice(type: .wifi, interface: "wlan0", managed: true, state: .activated)

    static func nm(_ state: NMState, _ connectivity: NMConnectivityState = .none, devices: [NetworkManagerDevice] = [],
                   primary: [NetworkDevice] = [], primaryType: String = "", startup: Bool = false,
                   checkLive: Bool = false, vpnActivating: Bool = false) -> NetworkManagerSnapshot {
        NetworkManagerSnapshot(
            state: state, connectivity: connectivity, primaryConnectionType: primaryType, primaryDevices: primary,
            primaryRouteHasGateway: true, startup: startup, connectivityCheckEnabled: checkLive,
            connectivityCheckAvailable: checkLive, devices: devices, vpnActivating: vpnActivating)
    }
    static let wifi70 = nm(.connectedGlobal, .full, devices: [wlan0Device],
                           primary: [NetworkDevice(type: .wifi, interface: "wlan0", ipInterface: "wlan0")],
                           primaryType: "802-11-wireless")

    /// One row: the situation, and what must be published once any disagreement has held (`held`) or not.
    struct Row: Sendable, CustomTestStringConvertible {
        let label: String
        let networkManager: NetworkManagerSnapshot?
        let ipv4: KernelPath
        var ipv6: KernelPath = .none
        var overrides = true
        let rule: ReachabilityDecision.Rule
        let status: NetworkReachabilityStatus
        let source: ReachabilitySource
        var reason: UnsatisfiedReason = .none
        var interface = ""
        var flags: ReachabilityFlags? = nil
        var testDescription: String { "\(rule.rawValue): \(label)" }
    }

    static let held: [Row] = [
        Row(label: "NetworkManager not on the bus: the kernel's path", networkManager: nil, ipv4: eth0,
            rule: .r0, status: .reachableViaWiFi, source: .netlink, interface: "eth0"),
        Row(label: "NetworkManager starting, DISCONNECTED, path intact: the kernel's path",
            networkManager: nm(.disconnected, devices: [eth0Managed], startup: true), ipv4: eth0,
            rule: .r1, status: .reachableViaWiFi, source: .netlink, interface: "eth0"),
        Row(label: "ASLEEP over an unmanaged path is never overridden",
            networkManager: nm(.asleep, devices: [eth0Unmanaged]), ipv4: eth0,
            rule: .r2, status: .notReachable, source: .networkManager, reason: .disabled),
        Row(label: "a portal while connected: NetworkManager's portal flags",
            networkManager: nm(.connectedGlobal, .portal, devices: [wlan0Device],
                               primary: [NetworkDevice(type: .wifi, interface: "wlan0", ipInterface: "wlan0")],
                               primaryType: "802-11-wireless"), ipv4: wlan0,
            rule: .r3, status: .notReachable, source: .networkManager, reason: .portal, interface: "wlan0",
            flags: [.reachable, .connectionRequired, .interventionRequired]),
        Row(label: "a portal on an unmanaged path while DISCONNECTED: portal flags, never plain Reachable",
            networkManager: nm(.disconnected, .portal, devices: [eth0Unmanaged]), ipv4: eth0,
            rule: .r3, status: .notReachable, source: .netlinkOverride, reason: .portal, interface: "eth0",
            flags: [.reachable, .connectionRequired, .interventionRequired]),
        Row(label: "a portal the device's live check found, DISCONNECTED, no path: not upgraded",
            networkManager: nm(.disconnected, .none, devices: [eth0Unmanaged]), ipv4: noRoute,
            rule: .r13, status: .notReachable, source: .networkManager, reason: .noRoute),
        Row(label: "connected, kill switch (prohibit) on both families: blocked",
            networkManager: wifi70, ipv4: blocked, ipv6: noRoute,
            rule: .r4, status: .notReachable, source: .netlinkOverride, reason: .blocked),
        Row(label: "connected, no route in either family: no-route",
            networkManager: wifi70, ipv4: noRoute, ipv6: noRoute,
            rule: .r4, status: .notReachable, source: .netlinkOverride, reason: .noRoute),
        Row(label: "connected, the path's link lost its carrier: no-link",
            networkManager: wifi70, ipv4: eth0Down,
            rule: .r5, status: .notReachable, source: .netlinkOverride, reason: .noLink),
        Row(label: "connected over Wi-Fi, the path leaves by wg0: refined to the tunnel",
            networkManager: wifi70, ipv4: wg0,
            rule: .r6, status: .reachableViaWiFi, source: .networkManagerRefined, interface: "wg0",
            flags: [.reachable, .transientConnection, .isDirect]),
        Row(label: "connected over Wi-Fi, the path leaves by wlan0: NetworkManager's word",
            networkManager: wifi70, ipv4: wlan0,
            rule: .r6, status: .reachableViaWiFi, source: .networkManager, interface: "wlan0", flags: [.reachable]),
        Row(label: "connected, the path leaves by a tunnel without underlay: NetworkManager may be ahead",
            networkManager: wifi70, ipv4: path(.noUnderlay, via: "wg0", medium: .tunnel),
            rule: .r7, status: .reachableViaWiFi, source: .networkManager, interface: "wlan0"),
        Row(label: "DISCONNECTED, the kernel routes over an unmanaged device (PackageKit #979)",
            networkManager: nm(.disconnected, devices: [eth0Unmanaged]), ipv4: eth0,
            rule: .r8, status: .reachableViaWiFi, source: .netlinkOverride, interface: "eth0", flags: [.reachable]),
        Row(label: "CONNECTED_LOCAL, the kernel routes over a device NetworkManager does not know",
            networkManager: nm(.connectedLocal), ipv4: eth0,
            rule: .r8, status: .reachableViaWiFi, source: .netlinkOverride, interface: "eth0"),
        Row(label: "UNKNOWN, the kernel routes over an externally configured device",
            networkManager: nm(.unknown, devices: [eth0External]), ipv4: eth0,
            rule: .r8, status: .reachableViaWiFi, source: .netlinkOverride, interface: "eth0"),
        Row(label: "CONNECTING on another device, the path over an unmanaged one (Cockpit #12715)",
            networkManager: nm(.connecting, devices: [eth0Unmanaged, wlan0Device]), ipv4: eth0,
            rule: .r9, status: .reachableViaWiFi, source: .netlinkOverride, interface: "eth0"),
        Row(label: "CONNECTING over the device the path leaves by is never overridden",
            networkManager: nm(.connecting, devices: [eth0Managed]), ipv4: eth0,
            rule: .r10, status: .notReachable, source: .networkManager, reason: .connecting,
            flags: [.connectionRequired]),
        Row(label: "CONNECTING, an NM VPN activating, unmanaged path: never overridden",
            networkManager: nm(.connecting, devices: [eth0Unmanaged], vpnActivating: true), ipv4: eth0,
            rule: .r10, status: .notReachable, source: .networkManager, reason: .connecting),
        Row(label: "DISCONNECTED, the path over NetworkManager's own device: its word",
            networkManager: nm(.disconnected, devices: [eth0Managed]), ipv4: eth0,
            rule: .r11, status: .notReachable, source: .networkManager, reason: .noRoute),
        Row(label: "DISCONNECTED, its live check found nothing on the unmanaged path: check-failed",
            networkManager: nm(.disconnected, devices: [NetworkManagerDevice(
                interface: "eth0", managed: false, state: .unmanaged, ip4Connectivity: .none)], checkLive: true),
            ipv4: eth0, rule: .r12, status: .notReachable, source: .networkManager, reason: .checkFailed),
        Row(label: "DISCONNECTED, an NM VPN activating, unmanaged path: never overridden",
            networkManager: nm(.disconnected, devices: [eth0Unmanaged], vpnActivating: true), ipv4: eth0,
            rule: .r13, status: .notReachable, source: .networkManager, reason: .noRoute),
        Row(label: "DISCONNECTED, the path's link has no carrier: no-link",
            networkManager: nm(.disconnected), ipv4: eth0Down,
            rule: .r13, status: .notReachable, source: .networkManager, reason: .noLink),
        Row(label: "DISCONNECTED, no route at all: no-route",
            networkManager: nm(.disconnected), ipv4: noRoute,
            rule: .r13, status: .notReachable, source: .networkManager, reason: .noRoute),
        Row(label: "--no-override: DISCONNECTED over an unmanaged path is NetworkManager's word",
            networkManager: nm(.disconnected, devices: [eth0Unmanaged]), ipv4: eth0, overrides: false,
            rule: .r13, status: .notReachable, source: .networkManager, reason: .noRoute),
        Row(label: "--no-override: connected under a kill switch is NetworkManager's word, not refined",
            networkManager: wifi70, ipv4: blocked, overrides: false,
            rule: .r7, status: .reachableViaWiFi, source: .networkManager, interface: "wlan0"),
        Row(label: "--no-override: while NetworkManager starts, the kernel's path (as before the cross-check)",
            networkManager: nm(.connectedGlobal, startup: true), ipv4: noRoute, overrides: false,
            rule: .r1, status: .notReachable, source: .netlink, reason: .noRoute),
    ]

    @Test("once any disagreement has held for the delay", arguments: held)
    func rowOnceHeld(_ row: Row) {
        let decision = ReachabilityDecision(.init(
            networkManager: row.networkManager, ipv4: row.ipv4, ipv6: row.ipv6, overrides: row.overrides,
            delay: .seconds(1), disagreementHeld: .seconds(1)))
        #expect(decision.rule == row.rule)
        #expect(decision.pending == nil)
        #expect(decision.published.status == row.status)
        #expect(decision.published.source == row.source)
        #expect(decision.published.unsatisfiedReason == row.reason)
        #expect(decision.published.interface == row.interface)
        if let flags = row.flags { #expect(decision.published.flags == flags) }
        #expect(decision.published.details.overrideRule == (row.source == .netlinkOverride ? row.rule.rawValue : nil))
    }

    @Test("before the delay a timed row waits, and the row below it decides",
          arguments: held.filter { $0.rule.isTimed })
    func timedRowWaits(_ row: Row) {
        let decision = ReachabilityDecision(.init(
            networkManager: row.networkManager, ipv4: row.ipv4, ipv6: row.ipv6,
            delay: .seconds(1), disagreementHeld: .milliseconds(400)))
        #expect(decision.pending == row.rule)
        #expect(decision.pendingRemaining == .milliseconds(600))
        #expect(!decision.rule.isTimed)
        #expect(decision.published.source != .netlinkOverride)
        #expect(decision.published.status == PublishedReachability(networkManager: row.networkManager!).status,
                "NetworkManager's word meanwhile")
    }

    @Test func anUpwardOverrideConnectivityIsTheDevicesLiveCheckNeverInvented() {
        let unchecked = ReachabilityDecision(.init(
            networkManager: Self.nm(.disconnected, .full, devices: [Self.eth0Unmanaged]), ipv4: Self.eth0,
            disagreementHeld: .seconds(5)))
        #expect(unchecked.published.connectivity == .unknown, "FULL without a live check is NetworkManager's fake")
        let limited = ReachabilityDecision(.init(
            networkManager: Self.nm(.disconnected, devices: [NetworkManagerDevice(
                interface: "eth0", managed: false, state: .unmanaged, ip4Connectivity: .limited)], checkLive: true),
            ipv4: Self.eth0, disagreementHeld: .seconds(5)))
        #expect(limited.rule == .r8)
        #expect(limited.published.connectivity == .limited)
    }

    @Test func aDownwardOverrideKeepsNetworkManagersConnectivity() {
        let decision = ReachabilityDecision(.init(networkManager: Self.wifi70, ipv4: Self.blocked, ipv6: Self.blocked,
                                                  disagreementHeld: .seconds(5), disagreementSinceMicroseconds: 42))
        #expect(decision.published.connectivity == .full)
        #expect(decision.published.flags == [])
        #expect(decision.published.details.overrideSinceMicroseconds == 42)
        #expect(decision.published.details.path4?.error == "blocked")
    }

    @Test func detailsSayWhatTheDecisionWasMadeFrom() {
        let decision = ReachabilityDecision(.init(
            networkManager: Self.nm(.connectedLocal, devices: [Self.eth0Unmanaged]), ipv4: Self.eth0,
            disagreementHeld: .seconds(5), disagreementSinceMicroseconds: 7))
        let details = decision.published.details
        #expect(details.networkManagerState == 50)
        #expect(details.networkManagerCheckLive == false)
        #expect(details.pathDeviceControlled == false)
        #expect(details.path4?.interface == "eth0" && details.path4?.gateway == "192.0.2.1" && details.path4?.table == 254)
        #expect(details.path6?.error == "no-route")
        #expect(details.overrideRule == "R8" && details.overrideSinceMicroseconds == 7)
    }
}
