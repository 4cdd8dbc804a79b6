import ReachdCore
import Testing

/// "A name is reachable if any of its addresses is, taking the first reachable in resolver order."
@Suite("Host monitors: addresses in resolver order → one report")
struct HostReachabilityTests {
    static let wifi = route(via: "wlan0", medium: .wifi)
    static let wwan = route(via: "wwan0", medium: .wwan)
    static let lan = route(gateway: false, via: "eth0", isDefault: false)

    @Test func nameThatDoesNotResolveIsNotReachable() {
        let host = HostReachability(addressRoutes: [], portal: false)
        #expect(host.flags == [])
        #expect(host.chosenIndex == nil)
        #expect(host.report == HostReport(status: .notReachable, flags: [], interface: "", interfaceType: .none))
    }

    @Test("the first reachable address in resolver order is reported", arguments: [
        ([nil], nil, HostReport(status: .notReachable, flags: [], interface: "", interfaceType: .none)),
        ([nil, wifi], 1, HostReport(status: .reachableViaWiFi, flags: [.reachable], interface: "wlan0",
                                    interfaceType: .wifi)),
        ([wwan, wifi], 0, HostReport(status: .reachableViaWWAN, flags: [.reachable, .isWWAN], interface: "wwan0",
                                     interfaceType: .wwan)),
        ([route(.unreachable), route(.local, gateway: false, via: "lo", medium: .loopback, isDefault: false)], 1,
         HostReport(status: .reachableViaWiFi, flags: [.reachable, .isLocalAddress, .isDirect], interface: "lo",
                    interfaceType: .other)),
        ([route(.blackhole), route(.prohibit), route(.throw), nil], nil,
         HostReport(status: .notReachable, flags: [], interface: "", interfaceType: .none)),
        ([route(via: "eth0", up: false), lan], 1,
         HostReport(status: .reachableViaWiFi, flags: [.reachable, .isDirect], interface: "eth0",
                    interfaceType: .ethernet)),
        ([route(gateway: false, via: "wg0", medium: .tunnel)], 0,
         HostReport(status: .reachableViaWiFi, flags: [.reachable, .transientConnection, .isDirect],
                    interface: "wg0", interfaceType: .vpn)),
    ] as [([RouteLookupResult?], Int?, HostReport)])
    func firstReachableAddressIsReported(routes: [RouteLookupResult?], chosen: Int?, report: HostReport) {
        let host = HostReachability(addressRoutes: routes, portal: false)
        #expect(host.chosenIndex == chosen)
        #expect(host.report == report)
        #expect(host.flags == report.flags)
    }

    @Test func portalReportsInterventionRequiredForHostsBehindTheDefaultRoute() {
        let host = HostReachability(addressRoutes: [Self.wifi], portal: true)
        #expect(host.report == HostReport(
            status: .notReachable, flags: [.reachable, .connectionRequired, .interventionRequired],
            interface: "wlan0", interfaceType: .wifi))
    }

    @Test func portalBoundAddressStillCountsAsTheReachableOne() {
        // Flags with Reachable win even when the status is Not Reachable: "reachable" is the flag here.
        let host = HostReachability(addressRoutes: [Self.wifi, Self.lan], portal: true)
        #expect(host.chosenIndex == 0)
        #expect(host.flags == [.reachable, .connectionRequired, .interventionRequired])
    }

    @Test func localNetworkAddressesAreNotBehindThePortal() {
        let host = HostReachability(addressRoutes: [nil, Self.lan], portal: true)
        #expect(host.report.flags == [.reachable, .isDirect])
        #expect(host.report.status == .reachableViaWiFi)
    }

    @Test func beforeTheFirstAnswerTheMonitorIsUnknown() {
        #expect(HostReport.unknown.status.rawValue == -1)
        #expect(HostReport.unknown.statusString == "Unknown")
        #expect(HostReport.unknown.flags == [])
    }
}
