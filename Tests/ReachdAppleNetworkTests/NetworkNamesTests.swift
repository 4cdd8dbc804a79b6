import Foundation
@testable import Network
import ReachdKit
import Testing

/// The Network product's own values: addresses, endpoints, and the library's path in Apple's names
/// (only renamed: every decision is the library's).
@Suite("Network: Apple's names over the library's path")
struct NetworkNamesTests {
    @Test func addressesParseAsApplesDo() throws {
        #expect(IPv4Address("192.0.2.1")?.rawValue == Data([192, 0, 2, 1]))
        #expect(IPv4Address("192.0.2") == nil && IPv4Address("300.0.0.1") == nil && IPv4Address("example.com") == nil)
        #expect(IPv4Address.loopback.isLoopback && IPv4Address("169.254.1.1")!.isLinkLocal && IPv4Address("224.0.0.251") == .mdnsGroup)
        #expect("\(IPv4Address.broadcast)" == "255.255.255.255")
        let scoped = try #require(IPv6Address("fe80::1%lo"))
        #expect(scoped.isLinkLocal && scoped.interface?.name == "lo" && scoped.interface?.index == 1)
        #expect("\(scoped)" == "fe80::1%lo")
        #expect(IPv6Address("::1") == .loopback && IPv6Address("::")?.isAny == true)
        #expect(IPv6Address("::ffff:192.0.2.1")?.asIPv4 == IPv4Address("192.0.2.1"))
        #expect(IPv6Address(Data(count: 15)) == nil && IPv4Address(Data([10, 0, 0, 1]), nil) == IPv4Address("10.0.0.1"))
    }

    @Test func hostsAndPortsAsApplesAre() {
        #expect(NWEndpoint.Host("192.0.2.1") == .ipv4(IPv4Address("192.0.2.1")!))
        #expect(NWEndpoint.Host("2001:db8::1") == .ipv6(IPv6Address("2001:db8::1")!))
        #expect(NWEndpoint.Host("example.com") == .name("example.com", nil))
        let port: NWEndpoint.Port = 443
        #expect(port == .https && NWEndpoint.Port("8080")?.rawValue == 8080 && NWEndpoint.Port("http") == nil)
        #expect(NWEndpoint.hostPort(host: "192.0.2.1", port: .http).debugDescription == "192.0.2.1:80")
    }

    @Test("a VPN over Wi-Fi uses .other (the tunnel) and .wifi (its medium), as utun over en0 does")
    func aVPNUsesOtherAndItsMedium() {
        var update = ReachabilityUpdate(status: .reachableViaWiFi, flags: [.reachable], interfaceType: .vpn, interface: "tun0",
                                        connectivity: .full, backend: .networkmanager, source: .networkManager)
        update.interfaceVersion = 2
        update.level = .dns
        update.path.underlyingInterfaceType = .wifi
        update.path.gateways = ["fe80::1%wlan0"]
        update.path.availableInterfaces = [.init(name: "tun0", type: .vpn, hasInternetPath: true),
                                           .init(name: "wlan0", type: .wifi, hasInternetPath: true)]
        let path = NWPath(NetworkPath(update), interfaceIndex: { $0 == "wlan0" ? 3 : 7 })
        #expect(path.status == .satisfied)
        #expect(path.usesInterfaceType(.other) && path.usesInterfaceType(.wifi))
        #expect(!path.usesInterfaceType(.cellular) && !path.usesInterfaceType(.wiredEthernet) && !path.usesInterfaceType(.loopback))
        #expect(path.availableInterfaces.map(\.type) == [.other, .wifi] && path.availableInterfaces.map(\.index) == [7, 3])
        guard case .hostPort(.ipv6(let gateway), .any) = path.gateways.first else {
            Issue.record("gateway \(path.gateways)")
            return
        }
        #expect(gateway.interface == NWInterface(name: "wlan0", type: .wifi, index: 3), "scoped to the listed interface")
        #expect(!path.isConstrained && path.unsatisfiedReason == .notAvailable && path.localEndpoint == nil)
    }

    @Test("Apple's filters are the library's: .other stands for every type reachd has beyond Wi-Fi, cellular and wired")
    func filtersTranslateToTheLibrarys() {
        #expect(NWInterface.InterfaceType.filter(requiring: .cellular) == .required(.wwan))
        #expect(NWInterface.InterfaceType.filter(requiring: .other) == .prohibited([.wifi, .wwan, .ethernet, .none]))
        #expect(NWInterface.InterfaceType.filter(requiring: .loopback) == .prohibited(ReachdKit.InterfaceType.allCases))
        #expect(NWInterface.InterfaceType.filter(prohibiting: [.wiredEthernet, .other]) == .prohibited([.ethernet, .vpn, .bluetooth, .other]))
    }
}
