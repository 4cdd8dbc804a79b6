/// `SCNetworkReachabilityFlags`, bit for bit: the set reachd publishes as the D-Bus `Flags` property (`u`).
///
/// The values are Apple's, so a client ported from iOS or macOS can test the same bits it always has.
///
/// ```swift
/// let flags: ReachabilityFlags = [.reachable, .isDirect]
/// print(flags)                    // Reachable|IsDirect
/// print(flags.rawValue)           // 131074
/// NetworkReachabilityStatus(flags: flags) == .reachableViaWiFi   // true
/// ```
public struct ReachabilityFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// The path is up, but over a connection that comes and goes (VPN, PPP, WireGuard).
    public static let transientConnection = ReachabilityFlags(rawValue: 1 << 0)
    /// The destination can be reached with the current configuration.
    public static let reachable = ReachabilityFlags(rawValue: 1 << 1)
    /// A connection must be established first (reachd: NetworkManager is connecting, or a captive portal).
    public static let connectionRequired = ReachabilityFlags(rawValue: 1 << 2)
    /// The connection is established by sending traffic.
    public static let connectionOnTraffic = ReachabilityFlags(rawValue: 1 << 3)
    /// The user must act first (reachd: a captive portal wants a login).
    public static let interventionRequired = ReachabilityFlags(rawValue: 1 << 4)
    /// The connection is established on demand.
    public static let connectionOnDemand = ReachabilityFlags(rawValue: 1 << 5)
    /// The destination is an address of this machine.
    public static let isLocalAddress = ReachabilityFlags(rawValue: 1 << 16)
    /// The destination is on a directly attached network (no gateway in between).
    public static let isDirect = ReachabilityFlags(rawValue: 1 << 17)
    /// The path goes over a cellular modem.
    public static let isWWAN = ReachabilityFlags(rawValue: 1 << 18)

    /// Every flag Apple defines; bits outside it are carried along but have no name.
    public static let allKnown: ReachabilityFlags = [
        .transientConnection, .reachable, .connectionRequired, .connectionOnTraffic,
        .interventionRequired, .connectionOnDemand, .isLocalAddress, .isDirect, .isWWAN,
    ]

    /// Each known flag with Apple's name (the `kSCNetworkReachabilityFlags` suffix), in bit order.
    /// One table serves `names`, `description` and parsing, so they cannot drift apart.
    static let named: [(flag: ReachabilityFlags, name: String)] = [
        (.transientConnection, "TransientConnection"),
        (.reachable, "Reachable"),
        (.connectionRequired, "ConnectionRequired"),
        (.connectionOnTraffic, "ConnectionOnTraffic"),
        (.interventionRequired, "InterventionRequired"),
        (.connectionOnDemand, "ConnectionOnDemand"),
        (.isLocalAddress, "IsLocalAddress"),
        (.isDirect, "IsDirect"),
        (.isWWAN, "IsWWAN"),
    ]

    /// Apple's names of the known flags in this set, in bit order; unknown bits are left out.
    ///
    /// ```swift
    /// ReachabilityFlags([.isWWAN, .reachable]).names   // ["Reachable", "IsWWAN"]
    /// ```
    public var names: [String] {
        Self.named.compactMap { contains($0.flag) ? $0.name : nil }
    }
}
