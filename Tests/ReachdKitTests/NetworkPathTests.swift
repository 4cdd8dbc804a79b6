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
        var update = Self.update(.reachableViaWWAN, flags: [.reachable, .isWWAN], interfaces: [Self.wwan])
        update.interfaceType = .wwan
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

    /// A wired path as reachd publishes it: everything a filter that excludes it must not repeat.
    static func wiredPath(interfaces: [NetworkPath.Interface]) -> ReachabilityUpdate {
        var update = ReachabilityUpdate(status: .reachableViaWiFi, flags: [.reachable], interfaceType: .ethernet, interface: "eth0",
                                        isMetered: true, connectivity: .full, backend: .networkmanager, source: .networkManager,
                                        unsatisfiedReason: .none)
        update.interfaceVersion = 2
        update.level = .online
        update.path = PathFacts(supportsIPv4: true, supportsIPv6: true, supportsDNS: true, connectivityChecked: true, hasLink: true,
                                gateways: ["192.0.2.1", "fe80::1%eth0", "fe80::2%wwan0"], availableInterfaces: interfaces)
        return update
    }

    static let ethernet = NetworkPath.Interface(name: "eth0", type: .ethernet, hasInternetPath: true)

    @Test func aMonitorExcludingTheOnlyLinkDescribesNothingOfIt() {
        let update = Self.wiredPath(interfaces: [Self.ethernet])
        for filter: NetworkPath.InterfaceFilter in [.prohibited([.ethernet]), .required(.wifi)] {
            let path = NetworkPath(update, filter: filter)
            #expect(path.status == .unsatisfied && path.unsatisfiedReason == .noLink && path.level == .none, "\(filter)")
            #expect(path.interfaceType == .none && !path.usesInterfaceType(.ethernet), "\(filter)")
            #expect(!path.supportsIPv4 && !path.supportsIPv6 && !path.supportsDNS, "\(filter)")
            #expect(path.gateways.isEmpty && path.availableInterfaces.isEmpty, "\(filter)")
            #expect(!path.isExpensive && !path.isConstrained && !path.isValidated && path.linkQuality == .unknown, "\(filter)")
            #expect(path.flags.isEmpty && path.reachabilityStatus == .notReachable, "\(filter)")
        }
        #expect(NetworkPath(update, filter: .required(.ethernet)) == NetworkPath(update), "accepted: the path as published")
    }

    @Test func anotherAcceptedInterfaceWithAPathSaysOnlyWhatIsItsOwn() {
        let update = Self.wiredPath(interfaces: [Self.ethernet, Self.wwan])
        let path = NetworkPath(update, filter: .prohibited([.ethernet]))
        #expect(path.status == .satisfied && path.level == .routable)
        #expect(path.interfaceType == .wwan && path.usesInterfaceType(.wwan) && !path.usesInterfaceType(.ethernet))
        #expect(path.gateways == ["fe80::2%wwan0"], "only the gateway scoped to the modem")
        #expect(path.isExpensive && path.flags == [.reachable, .isWWAN] && path.reachabilityStatus == .reachableViaWWAN)
        #expect(!path.supportsIPv4 && !path.supportsIPv6 && !path.supportsDNS && !path.isValidated,
                "reachd publishes these for the wired path only")
        #expect(path.availableInterfaces == [Self.wwan])
    }

    @Test func nothingHeardYetStaysUnknownUnderAFilter() {
        let path = NetworkPath(.unknown, filter: .required(.wifi))
        #expect(path.level == .unknown && path.unsatisfiedReason == .unknown && path.status == .unsatisfied)
    }

    @Test func aMeteredPathIsExpensiveNotConstrainedAndItsLinkQualityUnknown() {
        let path = NetworkPath(Self.wiredPath(interfaces: [Self.ethernet]))
        #expect(path.isExpensive && !path.isConstrained)
        #expect(path.linkQuality == .unknown)
    }

    /// Low Data Mode's nearest is the user's own metered setting, never NetworkManager's guess.
    @Test func onlyAUsersOwnMeteredSettingIsConstrained() {
        var update = Self.wiredPath(interfaces: [Self.ethernet])
        update.networkManagerMetered = .yes
        #expect(NetworkPath(update).isExpensive && NetworkPath(update).isConstrained)
        update.networkManagerMetered = .guessYes
        #expect(NetworkPath(update).isExpensive && !NetworkPath(update).isConstrained, "a modem's guess")
        update.networkManagerMetered = .yes
        update.isMetered = false
        #expect(!NetworkPath(update).isConstrained, "what reachd publishes as Metered decides")
        update.isMetered = true
        #expect(!NetworkPath(update, filter: .prohibited([.ethernet])).isConstrained,
                "a filter that excludes the path excludes its setting")
        update.linkQuality = .moderate
        #expect(NetworkPath(update).linkQuality == .moderate, "the service's LinkQuality")
    }
}
