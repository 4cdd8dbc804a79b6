import ReachdCore
import Testing

/// docs/mapping.md's "Host monitors and CheckHost" rules for one address.
@Suite("Kernel route → flags for one address")
struct HostRouteTests {
    @Test("every route type", arguments: [
        (RouteType.unspecified, false, ReachabilityFlags()),
        (.unicast, true, [.reachable]),
        (.unicast, false, [.reachable, .isDirect]),
        (.local, false, [.reachable, .isLocalAddress, .isDirect]),
        (.broadcast, false, [.reachable, .isDirect]),
        (.anycast, false, [.reachable, .isDirect]),
        (.multicast, false, [.reachable, .isDirect]),
        (.blackhole, false, []),
        (.unreachable, false, []),
        (.prohibit, false, []),
        (.throw, false, []),
        (.nat, false, []),
        (.xresolve, false, []),
        (RouteType(rawValue: 42), false, []),
    ] as [(RouteType, Bool, ReachabilityFlags)])
    func flagsForEachRouteType(type: RouteType, gateway: Bool, flags: ReachabilityFlags) {
        let lookup = route(type, gateway: gateway, isDefault: false)
        #expect(ReachabilityFlags(hostRoute: lookup, portal: false) == flags)
    }

    @Test func noRouteIsNotReachable() {
        #expect(ReachabilityFlags(hostRoute: nil, portal: false) == [])
        #expect(ReachabilityFlags(hostRoute: nil, portal: true) == [])
    }

    @Test("a link that is not up and running reaches nothing", arguments: [
        RouteType.unicast, .local, .broadcast,
    ] as [RouteType])
    func linkDownIsNotReachable(type: RouteType) {
        #expect(ReachabilityFlags(hostRoute: route(type, up: false), portal: false) == [])
    }

    @Test("medium bits from the outgoing link", arguments: [
        (LinkMedium.wifi, true, ReachabilityFlags.reachable),
        (.ethernet, true, [.reachable]),
        (.bluetooth, true, [.reachable]),
        (.other, true, [.reachable]),
        (.wwan, true, [.reachable, .isWWAN]),
        (.wwan, false, [.reachable, .isWWAN, .isDirect]),
        (.tunnel, false, [.reachable, .transientConnection, .isDirect]),
        (.tunnel, true, [.reachable, .transientConnection]),
    ] as [(LinkMedium, Bool, ReachabilityFlags)])
    func mediumBitsFromTheLink(medium: LinkMedium, gateway: Bool, flags: ReachabilityFlags) {
        #expect(ReachabilityFlags(hostRoute: route(gateway: gateway, medium: medium), portal: false) == flags)
    }

    @Test func localAddressOverLoopback() {
        let lookup = route(.local, gateway: false, via: "lo", medium: .loopback, isDefault: false)
        #expect(ReachabilityFlags(hostRoute: lookup, portal: true) == [.reachable, .isLocalAddress, .isDirect])
    }

    static let portalRows: [(RouteLookupResult, ReachabilityFlags)] = [
        (route(isDefault: true), [.reachable, .connectionRequired, .interventionRequired]),
        (route(medium: .wwan, isDefault: true), [.reachable, .isWWAN, .connectionRequired, .interventionRequired]),
        (route(gateway: false, isDefault: false), [.reachable, .isDirect]),
        (route(.unreachable, isDefault: true), []),
        (route(up: false, isDefault: true), []),
    ]

    @Test("a portal blocks only what goes through the default route", arguments: portalRows)
    func portalReportsInterventionRequiredOnTheDefaultRoute(lookup: RouteLookupResult, flags: ReachabilityFlags) {
        #expect(ReachabilityFlags(hostRoute: lookup, portal: true) == flags)
    }
}

@Suite("sysfs facts → link medium")
struct LinkMediumTests {
    @Test("classification", arguments: [
        (LinkFacts(name: "wlan0", hasWirelessDir: true, hasPhy80211: true, devtype: "wlan", arphrdType: 1),
         LinkMedium.wifi),
        (LinkFacts(name: "wlp2s0", hasPhy80211: true, arphrdType: 1), .wifi),
        (LinkFacts(name: "wlan1", hasWirelessDir: true, arphrdType: 1), .wifi),
        (LinkFacts(name: "wwan0", devtype: "wwan", arphrdType: 65534), .wwan),
        (LinkFacts(name: "wwan0", devtype: "wwan", arphrdType: 1), .wwan),
        (LinkFacts(name: "rmnet_data0", arphrdType: 519), .wwan),
        (LinkFacts(name: "ppp0", arphrdType: 512), .tunnel),
        (LinkFacts(name: "tun0", arphrdType: 65534), .tunnel),
        (LinkFacts(name: "wg0", devtype: "wireguard", arphrdType: 65534), .tunnel),
        (LinkFacts(name: "lo", arphrdType: 772), .loopback),
        (LinkFacts(name: "eth0", arphrdType: 1), .ethernet),
        (LinkFacts(name: "br0", devtype: "bridge", arphrdType: 1), .ethernet),
        (LinkFacts(name: "veth0", arphrdType: 1), .ethernet),
        (LinkFacts(name: "bnep0", devtype: "bluetooth", arphrdType: 1), .bluetooth),
        (LinkFacts(name: "ib0", arphrdType: 32), .other),
        (LinkFacts(name: "gre1", arphrdType: 778), .other),
        (LinkFacts(name: "sit0", arphrdType: 776), .other),
    ] as [(LinkFacts, LinkMedium)])
    func mediumFromSysfs(facts: LinkFacts, medium: LinkMedium) {
        #expect(LinkMedium(facts) == medium)
    }

    @Test("medium → InterfaceType", arguments: [
        (LinkMedium.wifi, InterfaceType.wifi), (.wwan, .wwan), (.ethernet, .ethernet), (.bluetooth, .bluetooth),
        (.tunnel, .vpn), (.loopback, .other), (.other, .other),
    ] as [(LinkMedium, InterfaceType)])
    func interfaceTypeFromMedium(medium: LinkMedium, type: InterfaceType) {
        #expect(InterfaceType(medium) == type)
    }

    @Test func routeTypesHaveTheKernelsValues() {
        #expect(RouteType.allKnown.map(\.rawValue) == Array(0...11))
        #expect(RouteType.allKnown.map(\.description) == [
            "RTN_UNSPEC", "RTN_UNICAST", "RTN_LOCAL", "RTN_BROADCAST", "RTN_ANYCAST", "RTN_MULTICAST",
            "RTN_BLACKHOLE", "RTN_UNREACHABLE", "RTN_PROHIBIT", "RTN_THROW", "RTN_NAT", "RTN_XRESOLVE",
        ])
        #expect(RouteType(rawValue: 42).description == "RouteType(42)")
    }
}
