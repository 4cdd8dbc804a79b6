/// What kind of software link the kernel made: `IFLA_INFO_KIND` of `RTM_NEWLINK`, the name of
/// the driver's `rtnl_link_ops` ("veth", "bridge", "wireguard", …). Hardware NICs have none.
///
/// ```swift
/// let kind: LinkKind = "veth"
/// kind == .veth   // true
/// ```
public struct LinkKind: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.init(rawValue: value) }
    public var description: String { rawValue }

    public static let bridge: LinkKind = "bridge"
    public static let veth: LinkKind = "veth"
    public static let tun: LinkKind = "tun"
    public static let bond: LinkKind = "bond"
    public static let team: LinkKind = "team"
    public static let vlan: LinkKind = "vlan"
    public static let macvlan: LinkKind = "macvlan"
    public static let ipvlan: LinkKind = "ipvlan"
    public static let wireguard: LinkKind = "wireguard"
    public static let dummy: LinkKind = "dummy"
    public static let ifb: LinkKind = "ifb"
    public static let nlmon: LinkKind = "nlmon"
    public static let vrf: LinkKind = "vrf"
    public static let vxlan: LinkKind = "vxlan"
    public static let geneve: LinkKind = "geneve"
    public static let gre: LinkKind = "gre"
    public static let gretap: LinkKind = "gretap"
    public static let ipip: LinkKind = "ipip"
    public static let sit: LinkKind = "sit"
    public static let ip6tnl: LinkKind = "ip6tnl"
    public static let vti: LinkKind = "vti"
    public static let vti6: LinkKind = "vti6"
    public static let xfrm: LinkKind = "xfrm"
}
