/// A link's class, without the path, and the medium a path over it is published with:
/// the table of docs/mapping.md "Which links can carry the path", first match wins.
///
/// A bridge's ports and a bond's, team's, VLAN's, macvlan's or ipvlan's lower links are looked
/// up with `linkNamed` and judged by the same table without the port row (C2) and without the
/// path (C5r): a port is judged by what it is, not by being a port. A link met twice on the way
/// down (a bridge listing itself, a loop of lower links) is not looked at again.
///
/// ```swift
/// let eth0 = LinkFacts(name: "eth0", arphrdType: 1, hasMaster: true, isBridgePort: true, hasDeviceLink: true)
/// let br0 = LinkFacts(name: "br0", arphrdType: 1, kind: .bridge, isBridge: true, bridgePorts: ["eth0"])
/// let links = ["eth0": eth0]
/// let classification = LinkClassification(br0, linkNamed: { links[$0] })
/// classification.linkClass       // .physical: br0 bridging eth0 on a VM host is the uplink
/// classification.interfaceType   // .ethernet, from eth0
/// ```
public struct LinkClassification: Sendable, Hashable {
    /// The class as long as the link does not carry the path: never `.routedVirtual`
    /// (see `linkClass(carriesPath:)`).
    public let linkClass: LinkClass
    /// The medium a path over this link is published with (its medium bits and InterfaceType):
    ///
    /// | class | medium |
    /// |---|---|
    /// | C5 with a bus | the link's own (`LinkMedium(facts)`) |
    /// | C5 bridge, bond, team, VLAN, macvlan, ipvlan | that of its first C5 port or lower link |
    /// | C6 | tunnel (InterfaceType vpn, TransientConnection), GRE and IPIP included |
    /// | veth, tap (C4, C7: C5r when on the path) | ethernet (the container's uplink) |
    /// | bridge without a C5 port, unknown virtual ethernet (C3, C8: C5r on the path) | other |
    /// | C0 | loopback; C1: other; C2, C6p: the link's own |
    public let medium: LinkMedium

    public init(_ facts: LinkFacts, linkNamed: (String) -> LinkFacts?) {
        var visited: Set<String> = [facts.name]
        let (linkClass, medium) = Self.classify(facts, asLower: false, linkNamed: linkNamed, visited: &visited)
        self.linkClass = linkClass
        self.medium = medium
    }

    /// The class when the link does, or does not, carry the path.
    public func linkClass(carriesPath: Bool) -> LinkClass {
        carriesPath ? linkClass.carryingPath : linkClass
    }

    /// InterfaceType for a path over this link. For C5r that is ethernet for a veth or tap,
    /// other for a bridge without hardware ports (docker0-style) and for an unknown virtual
    /// ethernet. (A bridge whose ports include an ethernet C5 is C5 itself, published as that port.)
    public var interfaceType: InterfaceType { InterfaceType(medium) }

    // MARK: The table

    static let sinkKinds: Set<LinkKind> = [.dummy, .ifb, .nlmon]
    /// The design's C6 kinds, plus the IPv6 and layer-2 GRE variants it does not name.
    static let tunnelKinds: Set<LinkKind> = [
        .wireguard, .gre, .ipip, .sit, .ip6tnl, .vti, .vti6, .xfrm, .vxlan, .geneve,
        .gretap, "ip6gre", "ip6gretap", "erspan", "ip6erspan",
    ]
    static let tunnelHardwareTypes: Set<UInt16> = [
        LinkFacts.arphrdNone, LinkFacts.arphrdTunnel, LinkFacts.arphrdTunnel6, LinkFacts.arphrdSIT, LinkFacts.arphrdIPGRE,
    ]
    /// Links stacked on others that are what their lower links are.
    static let stackedKinds: Set<LinkKind> = [.bond, .team, .vlan, .macvlan, .ipvlan]

    /// Among lower links without hardware, the one a stacked link takes after (a VLAN on
    /// docker0 is host-virtual like docker0): most capable first.
    private static let inheritanceOrder: [LinkClass] = [
        .ppp, .tunnel, .hostVirtualBridge, .veth, .tap, .unknownVirtualEthernet, .sink, .loopback,
    ]

    private static func classify(_ facts: LinkFacts, asLower: Bool, linkNamed: (String) -> LinkFacts?,
                                 visited: inout Set<String>) -> (LinkClass, LinkMedium) {
        let kind = facts.kind
        let isTun = kind == .tun
        let isBridge = kind == .bridge || facts.isBridge
        // C0
        if facts.isLoopback || facts.arphrdType == LinkFacts.arphrdLoopback { return (.loopback, .loopback) }
        // C1
        if let kind, sinkKinds.contains(kind) { return (.sink, .other) }
        // C2, unless judging what a port or lower link is
        if !asLower && (facts.hasMaster || facts.isBridgePort) { return (.port, LinkMedium(facts)) }
        // C6. The link types without a link layer count only without a bus: a raw-IP modem
        // (qmi_wwan, mhi_net) is type 65534 like tun, and is hardware.
        if let kind, tunnelKinds.contains(kind) { return (.tunnel, .tunnel) }
        if isTun && facts.tunFlags & LinkFacts.tunFlagTun != 0 { return (.tunnel, .tunnel) }
        if !facts.hasDeviceLink && tunnelHardwareTypes.contains(facts.arphrdType) { return (.tunnel, .tunnel) }
        // C6p
        if facts.arphrdType == LinkFacts.arphrdPPP { return (.ppp, LinkMedium(facts)) }
        // C5
        if facts.hasDeviceLink { return (.physical, LinkMedium(facts)) }
        let lowerNames = isBridge ? facts.bridgePorts : (kind.map(stackedKinds.contains) == true ? facts.lowerLinks : [])
        var lowerClasses: [LinkClass] = []
        for name in lowerNames where visited.insert(name).inserted {
            guard let lower = linkNamed(name) else { continue }
            let (lowerClass, lowerMedium) = classify(lower, asLower: true, linkNamed: linkNamed, visited: &visited)
            if lowerClass == .physical { return (.physical, lowerMedium) }
            lowerClasses.append(lowerClass)
        }
        // (C5r is the caller's: `linkClass(carriesPath:)`.)
        // C3
        if isBridge { return (.hostVirtualBridge, .other) }
        // C4
        if kind == .veth { return (.veth, .ethernet) }
        // C7. A tap that is a port is C2 unless it is judged as a bridge's port: then it is a tap.
        if isTun && facts.tunFlags & LinkFacts.tunFlagTap != 0 { return (.tap, .ethernet) }
        // A bond, VLAN, … without hardware beneath it is what its lower links are.
        if let inherited = inheritanceOrder.first(where: lowerClasses.contains) {
            return (inherited, inherited == .tunnel ? .tunnel : .other)
        }
        // C8, and every link no row describes.
        return (.unknownVirtualEthernet, .other)
    }
}

extension LinkClass {
    /// The class of the link `facts` describes; see `LinkClassification`.
    public init(facts: LinkFacts, linkNamed: (String) -> LinkFacts?, carriesPath: Bool) {
        self = LinkClassification(facts, linkNamed: linkNamed).linkClass(carriesPath: carriesPath)
    }
}
