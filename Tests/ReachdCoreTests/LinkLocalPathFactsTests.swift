import ReachdCore
import Testing

/// An IPv4 path whose only source is link-local (169.254/16, the IPv4LL fallback) reaches the
/// link, not the Internet: its link is not listed as `internet`, and it supports no IPv4 path.
@Suite("IPv4 link-local paths in the path facts")
struct LinkLocalPathFactsTests {
    static func path(_ interface: String, source: String, gateway: String? = nil) -> KernelPath {
        KernelPath(verdict: .ok, route: RouteLookupResult(type: .unicast, hasGateway: gateway != nil, outgoingInterface: interface,
                                                          medium: .ethernet, linkIsUp: true, isDefaultRoute: true),
                   table: 254, gateway: gateway, source: source)
    }

    static let facts = PathFacts(
        supportsIPv4: true, supportsDNS: true, hasLink: true, gateways: [],
        availableInterfaces: [.init(name: "eth0", type: .ethernet, hasInternetPath: true),
                              .init(name: "wlan0", type: .wifi, hasInternetPath: true)])

    @Test func anIPv4LLOnlyLinkIsNotInternet() {
        let facts = Self.facts.excludingLinkLocalOnly(ipv4: Self.path("eth0", source: "169.254.7.9"), ipv6: .none)
        #expect(!facts.supportsIPv4 && !facts.supportsDNS)
        #expect(facts.availableInterfaces == [.init(name: "wlan0", type: .wifi, hasInternetPath: true),
                                              .init(name: "eth0", type: .ethernet, hasInternetPath: false)])
    }

    @Test func aRoutableSourceChangesNothing() {
        let path = Self.path("eth0", source: "192.0.2.7", gateway: "192.0.2.1")
        #expect(Self.facts.excludingLinkLocalOnly(ipv4: path, ipv6: .none) == Self.facts)
    }

    @Test func anIPv6PathOverTheSameLinkKeepsItInternet() {
        let ipv6 = KernelPath(verdict: .ok, route: RouteLookupResult(type: .unicast, hasGateway: true, outgoingInterface: "eth0",
                                                                     medium: .ethernet, linkIsUp: true, isDefaultRoute: true),
                              table: 254, gateway: "fe80::1%eth0", source: "2001:db8::7")
        var facts = Self.facts
        facts.supportsIPv6 = true
        facts.gateways = ["fe80::1%eth0"]
        let result = facts.excludingLinkLocalOnly(ipv4: Self.path("eth0", source: "169.254.7.9"), ipv6: ipv6)
        #expect(!result.supportsIPv4 && result.supportsIPv6 && result.supportsDNS)
        #expect(result.gateways == ["fe80::1%eth0"])
        #expect(result.availableInterfaces.first == .init(name: "eth0", type: .ethernet, hasInternetPath: true))
    }
}
