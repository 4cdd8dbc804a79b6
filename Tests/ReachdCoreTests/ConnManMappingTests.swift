import ReachdCore
import Testing

/// Contract 5 §5.3 (docs/mapping.md, "ConnMan"): ConnMan's word checked against the kernel's
/// paths, row by row. Media a network namespace cannot make (a modem, Wi-Fi, a roaming SIM) are
/// checked here; the real connmand's ethernet, online check and IPv4LL in RealConnManTests.
@Suite("ConnMan's word → published values")
struct ConnManMappingTests {
    static func path(_ verdict: KernelPath.Verdict = .ok, via interface: String = "eth0", medium: LinkMedium = .ethernet,
                     source: String? = "192.0.2.10", gateway: Bool = true) -> KernelPath {
        KernelPath(verdict: verdict, route: RouteLookupResult(
            type: verdict == .blocked ? .blackhole : .unicast, hasGateway: gateway, outgoingInterface: interface, medium: medium,
            linkIsUp: verdict != .linkDown, isDefaultRoute: true), table: 254, gateway: gateway ? "192.0.2.1" : nil, source: source)
    }

    static func service(_ type: String, _ state: String = "online", interface: String = "eth0", roaming: Bool = false,
                        error: String = "") -> ConnManService {
        ConnManService(path: "/net/connman/service/\(type)_\(interface)", type: type, state: state, error: error,
                       roaming: roaming, interface: interface)
    }

    static func decide(_ connman: ConnManSnapshot, _ ipv4: KernelPath, _ ipv6: KernelPath = .none,
                       held: Duration? = nil, hasEligibleLink: Bool = true) -> ReachabilityDecision {
        ReachabilityDecision(.init(networkManager: nil, ipv4: ipv4, ipv6: ipv6, disagreementHeld: held,
                                   hasEligibleLink: hasEligibleLink, connman: connman))
    }

    /// One row of docs/mapping.md's ConnMan table for the default service's `Type`.
    struct MediumRow: Sendable, CustomTestStringConvertible {
        var type: String, kernelMedium: LinkMedium, roaming: Bool
        var interfaceType: InterfaceType, flags: ReachabilityFlags, status: NetworkReachabilityStatus, metered: Bool
        var testDescription: String { "\(type)\(roaming ? " roaming" : "") → \(interfaceType), metered \(metered)" }
    }

    @Test("the default service's Type names the medium, ahead of the kernel classifier's guess", arguments: [
        MediumRow(type: "ethernet", kernelMedium: .ethernet, roaming: false, interfaceType: .ethernet, flags: .reachable,
                  status: .reachableViaWiFi, metered: false),
        MediumRow(type: "wifi", kernelMedium: .ethernet, roaming: false, interfaceType: .wifi, flags: .reachable,
                  status: .reachableViaWiFi, metered: false),
        MediumRow(type: "cellular", kernelMedium: .ethernet, roaming: false, interfaceType: .wwan, flags: [.reachable, .isWWAN],
                  status: .reachableViaWWAN, metered: true),
        MediumRow(type: "cellular", kernelMedium: .other, roaming: true, interfaceType: .wwan, flags: [.reachable, .isWWAN],
                  status: .reachableViaWWAN, metered: true),
        MediumRow(type: "wifi", kernelMedium: .wifi, roaming: true, interfaceType: .wifi, flags: .reachable,
                  status: .reachableViaWiFi, metered: true),
        MediumRow(type: "bluetooth", kernelMedium: .ethernet, roaming: false, interfaceType: .bluetooth, flags: .reachable,
                  status: .reachableViaWiFi, metered: false),
        MediumRow(type: "gadget", kernelMedium: .other, roaming: false, interfaceType: .ethernet, flags: .reachable,
                  status: .reachableViaWiFi, metered: false),
        MediumRow(type: "vpn", kernelMedium: .tunnel, roaming: false, interfaceType: .vpn, flags: [.reachable, .transientConnection],
                  status: .reachableViaWiFi, metered: false),
    ])
    func mediumByServiceType(_ row: MediumRow) {
        let connman = ConnManSnapshot(state: "online", services: [Self.service(row.type, roaming: row.roaming)])
        let decision = Self.decide(connman, Self.path(medium: row.kernelMedium))
        #expect(decision.rule == .r6)
        let value = decision.published
        #expect(value.interfaceType == row.interfaceType)
        #expect(value.flags == row.flags)
        #expect(value.status == row.status)
        #expect(value.metered == row.metered)
        #expect(value.backendName == "connman" && value.sourceName == "connman")
        #expect(value.interface == "eth0")
    }

    @Test("online → Connectivity full; ready → reachable, connectivity not verified (unknown)")
    func onlineIsFullReadyIsUnverified() {
        let online = Self.decide(ConnManSnapshot(state: "online", services: [Self.service("ethernet")]), Self.path())
        #expect(online.published.connectivity == .full && online.published.reachable)
        let ready = Self.decide(ConnManSnapshot(state: "ready", services: [Self.service("ethernet", "ready")]), Self.path())
        #expect(ready.published.connectivity == .unknown && ready.published.reachable)
        #expect(ready.published.details.connmanState == "ready" && ready.published.details.connmanServiceState == "ready")
    }

    @Test("a VPN over cellular: InterfaceType vpn, TransientConnection, its underlay ConnMan's next connected service")
    func vpnOverItsUnderlay() {
        let connman = ConnManSnapshot(state: "online", services: [
            Self.service("vpn", "ready", interface: "tun0"), Self.service("cellular", interface: "wwan0")])
        let value = Self.decide(connman, Self.path(via: "tun0", medium: .tunnel)).published
        #expect(value.interfaceType == .vpn && value.flags == [.reachable, .transientConnection])
        #expect(value.metered, "a tunnel over a modem costs what the modem costs")
        #expect(PathFacts().withMedia(of: connman, published: value.interfaceType).underlyingInterfaceType == .wwan)
        // The kernel's path over the modem, not the tunnel (a split route): the modem's medium.
        let split = Self.decide(connman, Self.path(via: "wwan0")).published
        #expect(split.interfaceType == .wwan && split.metered)
    }

    @Test("OfflineMode → Not Reachable (disabled), whatever the kernel routes")
    func offlineModeIsDisabled() {
        let decision = Self.decide(ConnManSnapshot(state: "offline", offlineMode: true), Self.path(via: "eth9"), held: .seconds(5))
        #expect(decision.rule == .r2)
        #expect(decision.published.status == .notReachable && decision.published.unsatisfiedReason == .disabled)
        #expect(decision.published.details.connmanOfflineMode == true)
    }

    @Test("idle with no route → no-route; its link without carrier → no-link")
    func idleIsNotReachable() {
        let idle = ConnManSnapshot(state: "idle", services: [Self.service("ethernet", "idle")])
        #expect(Self.decide(idle, .none).published.unsatisfiedReason == .noRoute)
        #expect(Self.decide(idle, .none, hasEligibleLink: false).published.unsatisfiedReason == .noLink)
        #expect(Self.decide(idle, .none).published.connectivity == .none)
    }

    @Test("a service in failure and no other: Not Reachable, its Error in Details")
    func failureReasonInDetails() {
        let failed = ConnManSnapshot(state: "idle", services: [Self.service("ethernet", "failure", error: "dhcp-failed")])
        let value = Self.decide(failed, .none).published
        #expect(value.status == .notReachable && value.unsatisfiedReason == .noRoute)
        #expect(value.details.connmanServiceState == "failure" && value.details.connmanServiceError == "dhcp-failed")
    }

    @Test("association or configuration → connecting")
    func configuringIsConnecting() {
        let connecting = ConnManSnapshot(state: "idle", services: [Self.service("wifi", "configuration", interface: "wlan0")])
        let decision = Self.decide(connecting, .none)
        #expect(decision.rule == .r10 && decision.published.unsatisfiedReason == .connecting)
    }

    @Test("IPv4LL (a 169.254/16 source on `default dev IF scope link`): ConnMan's ready reads Not Reachable, level link")
    func ipv4LinkLocalIsLinkLevel() {
        let ready = ConnManSnapshot(state: "ready", services: [Self.service("ethernet", "ready")])
        let decision = Self.decide(ready, Self.path(source: "169.254.7.9", gateway: false), held: .seconds(5))
        var value = decision.published
        #expect(value.status == .notReachable && value.unsatisfiedReason == .noRoute)
        #expect(value.details.connmanIPv4LinkLocal == true)
        value.path.hasLink = true
        #expect(value.level == .link)
        // ConnMan's own IPv4 of the path's service says so too, when the kernel names no source.
        var fallback = Self.service("ethernet", "ready")
        fallback.ipv4Method = "dhcp"
        fallback.ipv4Address = "169.254.7.9"
        let byConnMan = Self.decide(ConnManSnapshot(state: "ready", services: [fallback]), Self.path(source: nil, gateway: false))
        #expect(!byConnMan.published.reachable && byConnMan.published.details.connmanIPv4LinkLocal == true)
        // A global IPv6 path beside it is still the Internet.
        let withIPv6 = Self.decide(ready, Self.path(source: "169.254.7.9", gateway: false),
                                   Self.path(source: "2001:db8::2")).published
        #expect(withIPv6.reachable)
    }

    @Test("a kill switch while ConnMan says online: after the delay the kernel wins (blocked, netlink-override, R4)")
    func killSwitchWinsAfterTheDelay() {
        let online = ConnManSnapshot(state: "online", services: [Self.service("ethernet")])
        let early = Self.decide(online, Self.path(.blocked), Self.path(.blocked))
        #expect(early.rule == .r7 && early.pending == .r4 && early.published.reachable)
        let held = Self.decide(online, Self.path(.blocked), Self.path(.blocked), held: .seconds(1))
        #expect(held.rule == .r4)
        #expect(held.published.status == .notReachable && held.published.unsatisfiedReason == .blocked)
        #expect(held.published.source == .netlinkOverride && held.published.backend == .connman)
        #expect(held.published.details.overrideRule == "R4")
    }

    @Test("--no-override: ConnMan's word as it is, however long the kernel disagrees")
    func noOverrideKeepsConnMansWord() {
        let online = ConnManSnapshot(state: "online", services: [Self.service("ethernet")])
        let decision = ReachabilityDecision(.init(networkManager: nil, ipv4: Self.path(.blocked), ipv6: Self.path(.blocked),
                                                  overrides: false, disagreementHeld: .seconds(60), connman: online))
        #expect(decision.rule == .r7 && decision.pending == nil && decision.published.reachable)
    }

    @Test("the carrier gone before ConnMan noticed: no-link after the delay (R5)")
    func carrierGoneWinsAfterTheDelay() {
        let online = ConnManSnapshot(state: "online", services: [Self.service("ethernet")])
        let held = Self.decide(online, Self.path(.linkDown), held: .seconds(1))
        #expect(held.rule == .r5 && held.published.unsatisfiedReason == .noLink)
    }

    @Test("ConnMan idle while the kernel routes over a link it has no service for: the kernel after the delay (R8)")
    func unmanagedUplinkOverridesIdle() {
        let idle = ConnManSnapshot(state: "idle", services: [Self.service("ethernet", "idle")])
        let early = Self.decide(idle, Self.path(via: "eth1"))
        #expect(early.pending == .r8 && !early.published.reachable)
        let held = Self.decide(idle, Self.path(via: "eth1"), held: .seconds(1))
        #expect(held.rule == .r8 && held.published.reachable && held.published.source == .netlinkOverride)
        // Over ConnMan's own link, which it says is idle: its word stands (R11).
        #expect(Self.decide(idle, Self.path(via: "eth0"), held: .seconds(5)).rule == .r11)
    }

    @Test("NetworkManager on the bus wins over ConnMan")
    func networkManagerWins() {
        let decision = ReachabilityDecision(.init(
            networkManager: NetworkManagerSnapshot(state: .disconnected), ipv4: Self.path(),
            connman: ConnManSnapshot(state: "online", services: [Self.service("ethernet")])))
        #expect(decision.published.backend == .networkmanager)
        #expect(decision.published.details.connmanState == nil)
    }

    @Test("the default service is the first connected one (ConnMan's new order may still be on its way)")
    func defaultServiceIsTheFirstConnected() {
        let snapshot = ConnManSnapshot(state: "online", services: [Self.service("wifi", "idle"), Self.service("ethernet")])
        #expect(snapshot.defaultService?.type == "ethernet")
        #expect(ConnManSnapshot(state: "idle", services: [Self.service("wifi", "idle")]).defaultService == nil)
    }

    @Test("a manager still online whose services have gone idle is on its way down: not connected")
    func managerLagsItsServices() {
        let goingDown = ConnManSnapshot(state: "online", services: [Self.service("ethernet", "disconnect")])
        #expect(!goingDown.isConnected && !goingDown.isOnline)
        let value = Self.decide(goingDown, .none).published
        #expect(value.status == .notReachable && value.connectivity == .none)
    }
}
