import ReachdKit
import Testing

/// `NetworkPath` from reachd's values: NWPath's status from AFNetworking's, what an older
/// reachd lacks derived, and filtered monitors seeing only the interfaces they accept.
@Suite("NetworkPath mapping")
struct NetworkPathTests {
    static func update(_ status: NetworkReachabilityStatus, flags: ReachabilityFlags = [.reachable],
                       level: NetworkLevel = .dns, interfaces: [NetworkPath.Interface] = []) -> ReachabilityUpdate {
        var update = ReachabilityUpdate(status: status, flags: flags, interfaceType: .wifi, interface: "wlan0",
                                        connectivity: .full, backend: .networkmanager, source: .networkManager,
                                        unsatisfiedReason: status.isReachable ? .none : .noRoute)
        update.interfaceVersion = 2
        update.level = level
        update.path.availableInterfaces = interfaces
        return update
    }

    static let wifi = NetworkPath.Interface(name: "wlan0", type: .wifi, hasInternetPath: true)
    static let wwan = NetworkPath.Interface(name: "wwan0", type: .wwan, hasInternetPath: true)
    static let ethernetNoPath = NetworkPath.Interface(name: "eth0", type: .ethernet, hasInternetPath: false)

    @Test func reachableIsSatisfiedAndNotReachableIsNot() {
        #expect(NetworkPath(Self.update(.reachableViaWiFi)).status == .satisfied)
        #expect(NetworkPath(Self.update(.notReachable, flags: [])).status == .unsatisfied)
        #expect(NetworkPath(Self.update(.notReachable, flags: [.reachable, .connectionRequired, .connectionOnDemand]))
                .status == .requiresConnection)
        #expect(NetworkPath(Self.update(.notReachable, flags: [.reachable, .connectionRequired, .interventionRequired]))
                .status == .unsatisfied, "a portal wants a person, not a connection on demand")
    }

    @Test func anOlderReachdIsDerivedFromStatusAndBackend() {
        let old = ReachabilityUpdate(status: .reachableViaWWAN, flags: [.reachable, .isWWAN], backend: .netlink)
        let path = NetworkPath(old)
        #expect(path.level == .routable)
        #expect(path.source == .netlink)
        #expect(path.unsatisfiedReason == .none)
        #expect(NetworkPath(.unknown).level == .unknown)
        #expect(NetworkPath(.unknown).unsatisfiedReason == .unknown)
    }

    @Test func aRequiredTypeIsSatisfiedOnlyThroughAnInterfaceOfThatTypeWithAPath() {
        let update = Self.update(.reachableViaWiFi, interfaces: [Self.wifi, Self.ethernetNoPath])
        #expect(NetworkPath(update, filter: .required(.wifi)).status == .satisfied)
        let ethernet = NetworkPath(update, filter: .required(.ethernet))
        #expect(ethernet.status == .unsatisfied)
        #expect(ethernet.unsatisfiedReason == .noRoute)
        #expect(ethernet.availableInterfaces == [Self.ethernetNoPath])
    }

    @Test func prohibitedTypesAreNeverUsed() {
        let update = Self.update(.reachableViaWWAN, flags: [.reachable, .isWWAN], interfaces: [Self.wwan])
        #expect(NetworkPath(update, filter: .prohibited([.wwan])).status == .unsatisfied)
        let both = Self.update(.reachableViaWiFi, interfaces: [Self.wifi, Self.wwan])
        let path = NetworkPath(both, filter: .prohibited([.wwan]))
        #expect(path.status == .satisfied)
        #expect(path.interfaceType == .wifi)
        #expect(!path.usesInterfaceType(.wwan))
    }

    @Test func validatedNeedsAFullCheckThatRan() {
        var update = Self.update(.reachableViaWiFi)
        #expect(!NetworkPath(update).isValidated, "full, but the check did not run")
        update.path.connectivityChecked = true
        #expect(NetworkPath(update).isValidated)
        #expect(!NetworkPath(update).isConstrained)
    }
}
