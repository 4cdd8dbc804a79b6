import ReachdCore
import Testing

/// docs/mapping.md's "Kernel backend" section: published values from the kernel's default routes.
@Suite("Kernel default routes → published values")
struct KernelBackendTests {
    struct Row: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let ipv4: RouteLookupResult?
        let ipv6: RouteLookupResult?
        let flags: ReachabilityFlags
        let status: NetworkReachabilityStatus
        let interfaceType: InterfaceType
        let interface: String
        let metered: Bool
    }

    @Test("default routes", arguments: [
        Row(testDescription: "no default route", ipv4: nil, ipv6: nil,
            flags: [], status: .notReachable, interfaceType: .none, interface: "", metered: false),
        Row(testDescription: "wifi", ipv4: route(via: "wlan0", medium: .wifi), ipv6: nil,
            flags: [.reachable], status: .reachableViaWiFi, interfaceType: .wifi, interface: "wlan0", metered: false),
        Row(testDescription: "ethernet", ipv4: route(via: "eth0", medium: .ethernet), ipv6: nil,
            flags: [.reachable], status: .reachableViaWiFi, interfaceType: .ethernet, interface: "eth0",
            metered: false),
        Row(testDescription: "wwan", ipv4: route(via: "wwan0", medium: .wwan), ipv6: nil,
            flags: [.reachable, .isWWAN], status: .reachableViaWWAN, interfaceType: .wwan, interface: "wwan0",
            metered: true),
        Row(testDescription: "ppp, no gateway", ipv4: route(gateway: false, via: "ppp0", medium: .tunnel), ipv6: nil,
            flags: [.reachable, .transientConnection, .isDirect], status: .reachableViaWiFi, interfaceType: .vpn,
            interface: "ppp0", metered: false),
        Row(testDescription: "bluetooth", ipv4: route(via: "bnep0", medium: .bluetooth), ipv6: nil,
            flags: [.reachable], status: .reachableViaWiFi, interfaceType: .bluetooth, interface: "bnep0",
            metered: false),
        Row(testDescription: "loopback is other", ipv4: route(via: "lo", medium: .loopback), ipv6: nil,
            flags: [.reachable], status: .reachableViaWiFi, interfaceType: .other, interface: "lo", metered: false),
        Row(testDescription: "link down", ipv4: route(via: "eth0", up: false), ipv6: nil,
            flags: [], status: .notReachable, interfaceType: .none, interface: "", metered: false),
        Row(testDescription: "IPv6 only", ipv4: nil, ipv6: route(via: "eth0"),
            flags: [.reachable], status: .reachableViaWiFi, interfaceType: .ethernet, interface: "eth0",
            metered: false),
        Row(testDescription: "IPv4 link down, IPv6 over wifi", ipv4: route(via: "eth0", up: false),
            ipv6: route(via: "wlan0", medium: .wifi),
            flags: [.reachable], status: .reachableViaWiFi, interfaceType: .wifi, interface: "wlan0", metered: false),
        Row(testDescription: "both: IPv4 wins", ipv4: route(via: "wlan0", medium: .wifi),
            ipv6: route(via: "wwan0", medium: .wwan),
            flags: [.reachable], status: .reachableViaWiFi, interfaceType: .wifi, interface: "wlan0", metered: false),
        Row(testDescription: "unreachable default route", ipv4: nil, ipv6: route(.unreachable, via: "lo"),
            flags: [], status: .notReachable, interfaceType: .none, interface: "", metered: false),
        Row(testDescription: "blackhole default route", ipv4: route(.blackhole), ipv6: nil,
            flags: [], status: .notReachable, interfaceType: .none, interface: "", metered: false),
        Row(testDescription: "0.0.0.0 answered as local is no default route",
            ipv4: route(.local, gateway: false, via: "lo", medium: .loopback), ipv6: nil,
            flags: [], status: .notReachable, interfaceType: .none, interface: "", metered: false),
    ] as [Row])
    func publishedFromDefaultRoutes(row: Row) {
        let published = PublishedReachability(kernelDefaultRoute: row.ipv4, ipv6DefaultRoute: row.ipv6)
        #expect(published == PublishedReachability(
            status: row.status, flags: row.flags, interfaceType: row.interfaceType, interface: row.interface,
            metered: row.metered, connectivity: .unknown, backend: .netlink))
        #expect(published.backendName == "netlink")
    }
}
