/// Whether a link can carry the machine's path to the Internet, by what the kernel says it is,
/// never by its name: docs/mapping.md "Which links can carry the path". The raw value is the
/// row of that table.
///
/// ```swift
/// let docker0 = LinkFacts(name: "docker0", arphrdType: 1, kind: .bridge, isBridge: true,
///                         bridgePorts: ["veth1a2b"])
/// let veth = LinkFacts(name: "veth1a2b", arphrdType: 1, kind: .veth, hasMaster: true, isBridgePort: true)
/// let links = ["veth1a2b": veth]
/// LinkClass(facts: docker0, linkNamed: { links[$0] }, carriesPath: false)  // .hostVirtualBridge
/// LinkClass(facts: docker0, linkNamed: { links[$0] }, carriesPath: true)   // .routedVirtual
/// ```
public enum LinkClass: String, Sendable, Hashable, CaseIterable {
    /// C0: the loopback link.
    case loopback = "C0"
    /// C1: a link that swallows what it is given (dummy, ifb, nlmon).
    case sink = "C1"
    /// C2: a port of a bridge, bond, team or VRF; its master is the candidate.
    case port = "C2"
    /// C6: a layer-3 or encapsulating tunnel (WireGuard, tun, GRE, IPIP, SIT, VXLAN, …).
    case tunnel = "C6"
    /// C6p: PPP, over a modem or PPPoE.
    case ppp = "C6p"
    /// C5: hardware, or a bridge, bond, team, VLAN, macvlan or ipvlan with hardware beneath it.
    case physical = "C5"
    /// C5r: a bridge, veth, tap or unknown virtual ethernet that carries the path
    /// (a container's `eth0`): treated as physical.
    case routedVirtual = "C5r"
    /// C3: a bridge without hardware beneath it (docker0, virbr0, cni0, …).
    case hostVirtualBridge = "C3"
    /// C4: a veth that does not carry the path (the host side of a container's link).
    case veth = "C4"
    /// C7: a tap without a master that does not carry the path (a routed VM's tap).
    case tap = "C7"
    /// C8: a virtual ethernet link of no known kind and no bus (out-of-tree `vboxnet*`, `vmnet*`),
    /// and any link no other row describes.
    case unknownVirtualEthernet = "C8"

    /// The class of a link that carries the path (of either family, or of a tracked default
    /// route): C3, C4, C7 and C8 become C5r, every other class stays.
    public var carryingPath: LinkClass {
        switch self {
        case .hostVirtualBridge, .veth, .tap, .unknownVirtualEthernet: .routedVirtual
        case .loopback, .sink, .port, .tunnel, .ppp, .physical, .routedVirtual: self
        }
    }

    /// Whether a path over this link can be reachable at all: not loopback or a sink
    /// (a default route through either is treated as `reject`).
    public var isEligibleForPath: Bool {
        switch self {
        case .loopback, .sink: false
        case .port, .tunnel, .ppp, .physical, .routedVirtual, .hostVirtualBridge, .veth, .tap,
             .unknownVirtualEthernet: true
        }
    }

    /// Whether a path over this link counts only while another link carries a default route
    /// beneath it: tunnels (C6).
    public var needsUnderlay: Bool { self == .tunnel }

    /// Whether an up and running link of this class satisfies the `link` level: C5, C5r, C6p.
    public var countsForLinkLevel: Bool {
        switch self {
        case .physical, .routedVirtual, .ppp: true
        case .loopback, .sink, .port, .tunnel, .hostVirtualBridge, .veth, .tap, .unknownVirtualEthernet: false
        }
    }

    /// Whether the link may appear in `AvailableInterfaces`: C5, C5r, C6, C6p.
    public var isListedAsAvailable: Bool {
        switch self {
        case .physical, .routedVirtual, .tunnel, .ppp: true
        case .loopback, .sink, .port, .hostVirtualBridge, .veth, .tap, .unknownVirtualEthernet: false
        }
    }
}
