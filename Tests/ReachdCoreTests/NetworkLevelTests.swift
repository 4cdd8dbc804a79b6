import ReachdCore
import Testing

/// `Level` as docs/mapping.md and `reachctl wait` define it: each level implies the ones
/// before; Unknown never reaches any.
@Suite("Levels")
struct NetworkLevelTests {
    @Test("each row of the level table", arguments: [
        // status, hasLink, supportsDNS, connectivity, checked → level
        (NetworkReachabilityStatus.unknown, true, true, Connectivity.full, true, NetworkLevel.unknown),
        (.notReachable, false, false, .none, false, .none),
        (.notReachable, true, false, .none, false, .link),
        (.notReachable, true, true, .portal, true, .link),  // a portal: link, never routable
        (.reachableViaWiFi, true, false, .full, true, .routable),
        (.reachableViaWiFi, true, true, .full, false, .dns),  // full, but nobody checked
        (.reachableViaWiFi, true, true, .limited, true, .dns),
        (.reachableViaWiFi, true, true, .full, true, .online),
        (.reachableViaWWAN, false, true, .full, true, .online),
    ] as [(NetworkReachabilityStatus, Bool, Bool, Connectivity, Bool, NetworkLevel)])
    func levelTable(status: NetworkReachabilityStatus, hasLink: Bool, supportsDNS: Bool,
                    connectivity: Connectivity, checked: Bool, level: NetworkLevel) {
        #expect(NetworkLevel(status: status, hasLink: hasLink, supportsDNS: supportsDNS,
                             connectivity: connectivity, connectivityChecked: checked) == level)
    }

    @Test func levelsAreOrderedAsEachImpliesThoseBefore() {
        #expect(NetworkLevel.allCases == [.unknown, .none, .link, .routable, .dns, .online])
        #expect(NetworkLevel.link < .routable && .routable < .dns && .dns < .online)
    }
}
