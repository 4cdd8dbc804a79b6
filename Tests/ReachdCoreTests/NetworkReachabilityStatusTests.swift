import ReachdCore
import Testing

@Suite("NetworkReachabilityStatus: AFNetworkReachabilityStatusForFlags")
struct NetworkReachabilityStatusTests {
    @Test func rawValuesAreAFNetworkingValues() {
        #expect(NetworkReachabilityStatus.unknown.rawValue == -1)
        #expect(NetworkReachabilityStatus.notReachable.rawValue == 0)
        #expect(NetworkReachabilityStatus.reachableViaWWAN.rawValue == 1)
        #expect(NetworkReachabilityStatus.reachableViaWiFi.rawValue == 2)
    }

    // Written from AFNetworking's function: reachable = Reachable and (not ConnectionRequired
    // or (OnDemand or OnTraffic) and not InterventionRequired); IsWWAN picks WWAN.
    @Test("status for the flag combinations that matter", arguments: [
        (ReachabilityFlags(), NetworkReachabilityStatus.notReachable),
        ([.reachable], .reachableViaWiFi),
        ([.reachable, .connectionRequired], .notReachable),
        ([.reachable, .connectionRequired, .connectionOnDemand], .reachableViaWiFi),
        ([.reachable, .connectionRequired, .connectionOnTraffic], .reachableViaWiFi),
        ([.reachable, .connectionRequired, .connectionOnDemand, .connectionOnTraffic], .reachableViaWiFi),
        ([.reachable, .connectionRequired, .connectionOnDemand, .interventionRequired], .notReachable),
        ([.reachable, .connectionRequired, .connectionOnTraffic, .interventionRequired], .notReachable),
        ([.reachable, .connectionRequired, .interventionRequired], .notReachable),
        ([.reachable, .interventionRequired], .reachableViaWiFi),
        ([.reachable, .connectionOnDemand], .reachableViaWiFi),
        ([.reachable, .isWWAN], .reachableViaWWAN),
        ([.reachable, .connectionRequired, .isWWAN], .notReachable),
        ([.reachable, .connectionRequired, .connectionOnTraffic, .isWWAN], .reachableViaWWAN),
        ([.reachable, .transientConnection, .isWWAN], .reachableViaWWAN),
        ([.reachable, .transientConnection], .reachableViaWiFi),
        ([.reachable, .isDirect], .reachableViaWiFi),
        ([.reachable, .isLocalAddress, .isDirect], .reachableViaWiFi),
        ([.isWWAN], .notReachable),
        ([.connectionRequired], .notReachable),
        ([.connectionRequired, .connectionOnDemand], .notReachable),
        ([.connectionRequired, .isWWAN], .notReachable),
        ([.isDirect, .isLocalAddress], .notReachable),
    ] as [(ReachabilityFlags, NetworkReachabilityStatus)])
    func statusFollowsAFNetworking(flags: ReachabilityFlags, status: NetworkReachabilityStatus) {
        #expect(NetworkReachabilityStatus(flags: flags) == status)
    }

    @Test("AFNetworking's English strings", arguments: [
        (NetworkReachabilityStatus.unknown, "Unknown"),
        (.notReachable, "Not Reachable"),
        (.reachableViaWWAN, "Reachable via WWAN"),
        (.reachableViaWiFi, "Reachable via WiFi"),
    ] as [(NetworkReachabilityStatus, String)])
    func stringsAreAFNetworkingStrings(status: NetworkReachabilityStatus, text: String) {
        #expect(status.string == text)
    }

    @Test("Reachable, ReachableViaWWAN, ReachableViaWiFi per status", arguments: [
        (NetworkReachabilityStatus.unknown, false, false, false),
        (.notReachable, false, false, false),
        (.reachableViaWWAN, true, true, false),
        (.reachableViaWiFi, true, false, true),
    ] as [(NetworkReachabilityStatus, Bool, Bool, Bool)])
    func derivedBooleansFollowStatus(status: NetworkReachabilityStatus, reachable: Bool, wwan: Bool, wifi: Bool) {
        #expect(status.isReachable == reachable)
        #expect(status.isReachableViaWWAN == wwan)
        #expect(status.isReachableViaWiFi == wifi)
    }
}
