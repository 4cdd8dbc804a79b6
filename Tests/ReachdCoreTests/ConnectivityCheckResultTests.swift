import ReachdCore
import Testing

/// reachd's own check enters the published value where NetworkManager's connectivity does,
/// with contract 1's mapping of a portal (contract 3, §2.2).
@Suite("reachd's connectivity check: what is published")
struct ConnectivityCheckResultTests {
    static let kernel: PublishedReachability = {
        var value = PublishedReachability(kernelPath4: KernelPath(verdict: .ok, route: RouteLookupResult(
            type: .unicast, hasGateway: true, outgoingInterface: "eth0", medium: .ethernet,
            linkIsUp: true, isDefaultRoute: true), table: 254, gateway: "192.0.2.1"), kernelPath6: .none)
        value.path = PathFacts(supportsIPv4: true, supportsDNS: true, hasLink: true)
        return value
    }()
    static let uri = "http://check.example/"

    @Test("full: Connectivity full, ConnectivityChecked, Level online; who checked is in Details")
    func full() {
        let value = Self.kernel.checked(by: ConnectivityCheckResult(verdict: .full, uri: Self.uri, httpStatus: 204,
                                                                     finishedMicroseconds: 42))
        #expect(value.connectivity == .full)
        #expect(value.path.connectivityChecked)
        #expect(value.level == .online)
        #expect(value.status == .reachableViaWiFi)
        #expect(value.captivePortalURL == "")
        #expect(value.details.checkSource == "reachd")
        #expect(value.details.checkURI == Self.uri)
        #expect(value.details.checkHTTPStatus == 204)
        #expect(value.details.checkMicroseconds == 42)
    }

    @Test("portal: Reachable|ConnectionRequired|InterventionRequired, Status 0, reason portal, the login page")
    func portal() {
        let value = Self.kernel.checked(by: ConnectivityCheckResult(verdict: .portal, uri: Self.uri, httpStatus: 302,
                                                                     portalURL: "http://login.example/"))
        #expect(value.flags == [.reachable, .connectionRequired, .interventionRequired])
        #expect(value.status == .notReachable)
        #expect(value.unsatisfiedReason == .portal)
        #expect(value.connectivity == .portal)
        #expect(value.captivePortalURL == "http://login.example/")
        #expect(value.level == .link)
        let withoutLocation = Self.kernel.checked(by: ConnectivityCheckResult(verdict: .portal, uri: Self.uri, httpStatus: 200))
        #expect(withoutLocation.captivePortalURL == Self.uri)
    }

    @Test("limited: the path stays Reachable (as NetworkManager's LIMITED is CONNECTED_SITE), Level dns")
    func limited() {
        let value = Self.kernel.checked(by: ConnectivityCheckResult(verdict: .limited, uri: Self.uri))
        #expect(value.status == .reachableViaWiFi)
        #expect(value.connectivity == .limited)
        #expect(value.path.connectivityChecked)
        #expect(value.level == .dns)
        #expect(value.details.checkHTTPStatus == nil)
    }

    @Test("no path: a verdict changes nothing")
    func noPath() {
        let none = PublishedReachability(kernelPath4: .none, kernelPath6: .none)
        #expect(none.checked(by: ConnectivityCheckResult(verdict: .full, uri: Self.uri)) == none)
        #expect(PublishedReachability.unknown.checked(by: ConnectivityCheckResult(verdict: .portal, uri: Self.uri)) == .unknown)
    }
}
