/// `Level`: how far the network goes, each level implying the ones before it, as
/// `reachctl wait --level` waits for them.
///
/// | level | holds when |
/// |---|---|
/// | link | some link that can carry an Internet path (physical, routed virtual, PPP) is up with carrier |
/// | routable | Status is 1 or 2 (no portal, no connection required) |
/// | dns | routable, and a configured DNS server has a path |
/// | online | dns, and a connectivity check (NetworkManager's live one, or reachd's own) says full |
///
/// ```swift
/// NetworkLevel.dns >= .routable   // true
/// ```
public enum NetworkLevel: String, Sendable, Hashable, CaseIterable, Comparable {
    case unknown, none, link, routable, dns, online

    private var rank: Int { Self.allCases.firstIndex(of: self)! }

    public static func < (lhs: NetworkLevel, rhs: NetworkLevel) -> Bool { lhs.rank < rhs.rank }

    /// The level of a published state. Pure: the same facts give the same level.
    public init(status: NetworkReachabilityStatus, hasLink: Bool, supportsDNS: Bool,
                connectivity: Connectivity, connectivityChecked: Bool) {
        if status == .unknown {
            self = .unknown
        } else if !status.isReachable {
            self = hasLink ? .link : .none
        } else if !supportsDNS {
            self = .routable
        } else if connectivity == .full && connectivityChecked {
            self = .online
        } else {
            self = .dns
        }
    }
}

/// What the path API adds to the published reachability: the families, DNS, the check, the
/// gateways and the links that could carry a path (NWPath's vocabulary, on Linux).
public struct PathFacts: Sendable, Hashable {
    /// One link that could carry an Internet path: `AvailableInterfaces` a(ssb).
    public struct AvailableInterface: Sendable, Hashable {
        public var name: String
        public var type: InterfaceType
        public var hasInternetPath: Bool

        public init(name: String, type: InterfaceType, hasInternetPath: Bool) {
            self.name = name
            self.type = type
            self.hasInternetPath = hasInternetPath
        }
    }

    /// The kernel has a usable IPv4 path.
    public var supportsIPv4: Bool
    /// The kernel has a usable IPv6 path.
    public var supportsIPv6: Bool
    /// A configured DNS server has a path (no query is sent).
    public var supportsDNS: Bool
    /// A real check decided `Connectivity`: NetworkManager's (enabled and available) or reachd's own.
    public var connectivityChecked: Bool
    /// Some link that can carry an Internet path is up with carrier.
    public var hasLink: Bool
    /// The medium under a VPN path, nil otherwise.
    public var underlyingInterfaceType: InterfaceType?
    /// The deciding path's next hop first (`fe80::1%wlan0` form).
    public var gateways: [String]
    /// The deciding path's link first, then links with an Internet path, then the rest.
    public var availableInterfaces: [AvailableInterface]

    public init(supportsIPv4: Bool = false, supportsIPv6: Bool = false, supportsDNS: Bool = false,
                connectivityChecked: Bool = false, hasLink: Bool = false, underlyingInterfaceType: InterfaceType? = nil,
                gateways: [String] = [], availableInterfaces: [AvailableInterface] = []) {
        self.supportsIPv4 = supportsIPv4
        self.supportsIPv6 = supportsIPv6
        self.supportsDNS = supportsDNS
        self.connectivityChecked = connectivityChecked
        self.hasLink = hasLink
        self.underlyingInterfaceType = underlyingInterfaceType
        self.gateways = gateways
        self.availableInterfaces = availableInterfaces
    }

    /// Nothing known (no source).
    public static let none = PathFacts()
}

extension PublishedReachability {
    /// `Level`.
    public var level: NetworkLevel {
        NetworkLevel(status: status, hasLink: path.hasLink, supportsDNS: path.supportsDNS,
                     connectivity: connectivity, connectivityChecked: path.connectivityChecked)
    }

    /// `InterfaceVersion`: 2 since the path API, 3 since reachd's own connectivity check
    /// (`CaptivePortalURL`), 4 since `NetworkNamespace` (reachd says which namespace it answers for),
    /// 5 since `LinkQuality`.
    public static let interfaceVersion: UInt32 = 5
}
