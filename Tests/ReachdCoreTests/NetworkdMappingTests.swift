import ReachdCore
import Testing

/// Contract 3 §3.2: systemd-networkd as a source. The kernel's path decides; networkd adds the
/// medium (`DescribeLink`'s `Type`), `connecting`, and says whose link the path is over. Media a
/// network namespace cannot make (Wi-Fi, a modem) are checked here over `DescribeLink` JSON as
/// systemd 252 writes it.
@Suite("systemd-networkd's word → published values")
struct NetworkdMappingTests {
    // DescribeLink as systemd 252 answers it, trimmed of the arrays reachd skips (one kept, nested).
    static let wlanJSON = #"{"Index":3,"Name":"wlp2s0","Type":"wlan","Driver":"iwlwifi","Flags":69699,"FlagsString":"up,broadcast,running,multicast,lower-up","HardwareAddress":[82,144,180,92,128,98],"AdministrativeState":"configured","OperationalState":"routable","CarrierState":"carrier","AddressState":"routable","IPv4AddressState":"routable","IPv6AddressState":"degraded","OnlineState":"online","NetworkFile":"/etc/systemd/network/25-wireless.network","RequiredForOnline":true,"RequiredOperationalStateForOnline":["degraded","routable"],"SSID":"Caf\u00e9 \"Wi-Fi\"","DNSSettings":[{"LLMNR":"yes","ConfigSource":"static"}],"Addresses":[{"Family":2,"Address":[10,9,9,2],"PrefixLength":24,"ScopeString":"global"}]}"#
    static let wwanJSON = #"{"Index":5,"Name":"wwan0","Type":"wwan","Driver":"qmi_wwan","AdministrativeState":"configuring","OperationalState":"carrier","OnlineState":"offline","RequiredForOnline":true}"#
    static let unmanagedJSON = #"{"Index":4,"Name":"eth1","Type":"ether","AdministrativeState":"unmanaged","OperationalState":"routable","OnlineState":null}"#
    static let loopbackJSON = #"{"Index":1,"Name":"lo","Type":"loopback","Flags":65609,"AdministrativeState":"unmanaged","OperationalState":"carrier","CarrierState":"carrier","OnlineState":null,"Addresses":[]}"#

    static func path(via interface: String, medium: LinkMedium = .ethernet) -> KernelPath {
        KernelPath(verdict: .ok, route: RouteLookupResult(
            type: .unicast, hasGateway: true, outgoingInterface: interface, medium: medium,
            linkIsUp: true, isDefaultRoute: true), table: 254, gateway: "192.0.2.1")
    }

    @Test("DescribeLink's JSON: the keys reachd reads, nested values skipped, escapes decoded")
    func describeLinkIsRead() throws {
        let wlan = try #require(NetworkdLink(describeLinkJSON: Self.wlanJSON))
        #expect(wlan == NetworkdLink(index: 3, name: "wlp2s0", type: "wlan", administrativeState: "configured",
                                     operationalState: "routable", onlineState: "online", requiredForOnline: true))
        #expect(JSONObjectReader(Self.wlanJSON)?.string("SSID") == "Café \"Wi-Fi\"")
        #expect(JSONObjectReader(Self.wlanJSON)?["Addresses"] == .nested)
        let unmanaged = try #require(NetworkdLink(describeLinkJSON: Self.unmanagedJSON))
        #expect(unmanaged.onlineState == "" && !unmanaged.hasOnlineState && !unmanaged.isManaged && !unmanaged.requiredForOnline)
        #expect(NetworkdLink(describeLinkJSON: Self.loopbackJSON)?.medium == nil)
    }

    @Test("malformed or truncated JSON is no link", arguments: [
        "", "[]", #"{"Index":3}"#, #"{"Index":3,"Name":"x""#, #"{"Index":3,"Name":"x"} trailing"#,
        #"{"Index":3,"Name":"x","A":[1,2}"#, #"{"Index":3,"Name":"bad \x escape"}"#, #"{"Index":01e,"Name":"x"}"#,
        String(repeating: "[", count: 100),
    ])
    func malformedJSONIsNoLink(_ text: String) {
        #expect(NetworkdLink(describeLinkJSON: text) == nil)
    }

    @Test("DescribeLink's Type comes before the kernel classifier's guess: wlan is Wi-Fi")
    func wlanTypeIsWiFi() throws {
        let wlan = try #require(NetworkdLink(describeLinkJSON: Self.wlanJSON))
        // The kernel took the card for Ethernet (no wireless/ in a container's /sys, say).
        let value = PublishedReachability(kernelPath4: Self.path(via: "wlp2s0"), kernelPath6: .none,
                                          networkd: NetworkdSnapshot(onlineState: "online", links: [wlan]))
        #expect(value.interfaceType == .wifi)
        #expect(value.status == .reachableViaWiFi)
        #expect(value.flags == [.reachable])
        #expect(value.backend == .systemdNetworkd && value.backendName == "systemd-networkd")
        #expect(value.source == .netlink)
        let listed = PathFacts(availableInterfaces: [.init(name: "wlp2s0", type: .ethernet, hasInternetPath: true)])
            .withMedia(of: NetworkdSnapshot(onlineState: "online", links: [wlan]))
        #expect(listed.availableInterfaces.map(\.type) == [.wifi])
    }

    @Test("DescribeLink's Type wwan is a modem: IsWWAN, Reachable via WWAN, metered")
    func wwanTypeIsWWAN() throws {
        var wwan = try #require(NetworkdLink(describeLinkJSON: Self.wwanJSON))
        wwan.administrativeState = "configured"
        let value = PublishedReachability(kernelPath4: Self.path(via: "wwan0", medium: .tunnel), kernelPath6: .none,
                                          networkd: NetworkdSnapshot(onlineState: "online", links: [wwan]))
        #expect(value.interfaceType == .wwan)
        #expect(value.flags == [.reachable, .isWWAN])
        #expect(value.status == .reachableViaWWAN)
        #expect(value.metered)
    }

    @Test("a required link still configuring, no path yet: connecting")
    func requiredLinkConfiguringIsConnecting() throws {
        let wwan = try #require(NetworkdLink(describeLinkJSON: Self.wwanJSON))
        let configuring = NetworkdSnapshot(onlineState: "offline", links: [wwan])
        let value = PublishedReachability(kernelPath4: .none, kernelPath6: .none, networkd: configuring)
        #expect(value.status == .notReachable)
        #expect(value.unsatisfiedReason == .connecting)
        // Not when the link is not required, and never over a kill switch.
        var optional = wwan
        optional.requiredForOnline = false
        #expect(PublishedReachability(kernelPath4: .none, kernelPath6: .none,
                                      networkd: NetworkdSnapshot(onlineState: "offline", links: [optional]))
            .unsatisfiedReason == .noRoute)
        #expect(PublishedReachability(kernelPath4: KernelPath(verdict: .blocked), kernelPath6: .none, networkd: configuring)
            .unsatisfiedReason == .blocked)
    }

    @Test("a required link set down or without its cable stays `configuring` in networkd: no-link, not connecting",
          arguments: ["off", "no-carrier", "missing", ""])
    func requiredLinkWithoutCarrierIsNoLink(operationalState: String) throws {
        var down = try #require(NetworkdLink(describeLinkJSON: Self.wwanJSON))
        down.operationalState = operationalState
        let value = PublishedReachability(kernelPath4: .none, kernelPath6: .none,
                                          networkd: NetworkdSnapshot(onlineState: "offline", links: [down]),
                                          hasEligibleLink: false)
        #expect(value.status == .notReachable)
        #expect(value.unsatisfiedReason == .noLink)
    }

    @Test("networkd says offline, the kernel routes over a link it does not manage: the kernel's path, netlink-override")
    func unmanagedUplinkOverridesOffline() throws {
        let unmanaged = try #require(NetworkdLink(describeLinkJSON: Self.unmanagedJSON))
        let managed = NetworkdLink(index: 2, name: "eth0", operationalState: "carrier", onlineState: "offline",
                                   requiredForOnline: true)
        let offline = NetworkdSnapshot(onlineState: "offline", links: [managed, unmanaged])
        let overUnmanaged = PublishedReachability(kernelPath4: Self.path(via: "eth1"), kernelPath6: .none, networkd: offline)
        #expect(overUnmanaged.status == .reachableViaWiFi)
        #expect(overUnmanaged.source == .netlinkOverride)
        // A link networkd does not know at all is not its either.
        #expect(PublishedReachability(kernelPath4: Self.path(via: "veth9"), kernelPath6: .none, networkd: offline)
            .source == .netlinkOverride)
        // Over its own link, networkd's offline does not lower the kernel's path, and is no disagreement to report.
        let overManaged = PublishedReachability(kernelPath4: Self.path(via: "eth0"), kernelPath6: .none, networkd: offline)
        #expect(overManaged.status == .reachableViaWiFi)
        #expect(overManaged.source == .netlink)
        // networkd online over an unmanaged link: no disagreement.
        #expect(PublishedReachability(kernelPath4: Self.path(via: "eth1"), kernelPath6: .none,
                                      networkd: NetworkdSnapshot(onlineState: "online", links: [unmanaged]))
            .source == .netlink)
    }

    @Test("networkd is a source only with an OnlineState; NetworkManager wins when both are there")
    func whoIsTheSource() {
        let eth0 = Self.path(via: "eth0")
        let online = NetworkdSnapshot(onlineState: "online", links: [NetworkdLink(index: 2, name: "eth0", onlineState: "online", requiredForOnline: true)])
        let decided = ReachabilityDecision(.init(networkManager: nil, ipv4: eth0, networkd: online))
        #expect(decided.published.backend == .systemdNetworkd)
        #expect(decided.rule == .r0)
        #expect(decided.published.details.networkdOnlineState == "online")
        #expect(decided.published.details.networkdLinkOnlineStates == ["eth0": "online"])
        for silent in ["", "unknown"] {
            let value = ReachabilityDecision(.init(networkManager: nil, ipv4: eth0,
                                                   networkd: NetworkdSnapshot(onlineState: silent))).published
            #expect(value.backend == .netlink)
            #expect(value.details.networkdOnlineState == nil)
        }
        let nm = NetworkManagerSnapshot(state: .connectedGlobal, connectivity: .full)
        let both = ReachabilityDecision(.init(networkManager: nm, ipv4: eth0, networkd: online)).published
        #expect(both.backend == .networkmanager)
        #expect(both.details.networkdOnlineState == nil)
    }

    @Test("without NetworkManager, no eligible link with carrier is no-link (R13), with or without networkd")
    func noEligibleLinkIsNoLink() {
        let bare = ReachabilityDecision(.init(networkManager: nil, ipv4: .none, hasEligibleLink: false)).published
        #expect(bare.unsatisfiedReason == .noLink)
        #expect(bare.backend == .netlink)
        #expect(ReachabilityDecision(.init(networkManager: nil, ipv4: .none, hasEligibleLink: true)).published
            .unsatisfiedReason == .noRoute)
        let networkd = NetworkdSnapshot(onlineState: "offline", links: [NetworkdLink(index: 2, name: "eth0", operationalState: "off", onlineState: "offline", requiredForOnline: true)])
        #expect(ReachabilityDecision(.init(networkManager: nil, ipv4: .none, networkd: networkd, hasEligibleLink: false))
            .published.unsatisfiedReason == .noLink)
        // A kill switch stays a kill switch.
        #expect(ReachabilityDecision(.init(networkManager: nil, ipv4: KernelPath(verdict: .blocked), hasEligibleLink: false))
            .published.unsatisfiedReason == .blocked)
    }
}
