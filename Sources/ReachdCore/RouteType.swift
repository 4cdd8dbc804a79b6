/// rtnetlink's route type (`rtm_type`, the `RTN_*` constants of `<linux/rtnetlink.h>`): what the kernel
/// does with packets for a destination.
///
/// A struct with static members rather than an enum, so a type a newer kernel adds survives as its
/// number; the mapping treats it as unusable (flags 0). "No route at all" is not a type: it is a `nil`
/// `RouteLookupResult` (the lookup failed with `ENETUNREACH`).
///
/// ```swift
/// RouteType(rawValue: 1) == .unicast   // true
/// print(RouteType.blackhole)           // RTN_BLACKHOLE
/// ```
public struct RouteType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// `RTN_UNSPEC` (0).
    public static let unspecified = RouteType(rawValue: 0)
    /// `RTN_UNICAST` (1): a gateway or direct route.
    public static let unicast = RouteType(rawValue: 1)
    /// `RTN_LOCAL` (2): an address of this machine.
    public static let local = RouteType(rawValue: 2)
    /// `RTN_BROADCAST` (3): sent as link-layer broadcast.
    public static let broadcast = RouteType(rawValue: 3)
    /// `RTN_ANYCAST` (4): an anycast address of this machine.
    public static let anycast = RouteType(rawValue: 4)
    /// `RTN_MULTICAST` (5): a multicast route.
    public static let multicast = RouteType(rawValue: 5)
    /// `RTN_BLACKHOLE` (6): packets are dropped silently.
    public static let blackhole = RouteType(rawValue: 6)
    /// `RTN_UNREACHABLE` (7): the destination is unreachable (`EHOSTUNREACH`).
    public static let unreachable = RouteType(rawValue: 7)
    /// `RTN_PROHIBIT` (8): administratively prohibited (`EACCES`).
    public static let prohibit = RouteType(rawValue: 8)
    /// `RTN_THROW` (9): lookup continues in another table, and here it found nothing.
    public static let `throw` = RouteType(rawValue: 9)
    /// `RTN_NAT` (10): stateless NAT, removed from Linux long ago.
    public static let nat = RouteType(rawValue: 10)
    /// `RTN_XRESOLVE` (11): an external resolver, never implemented.
    public static let xresolve = RouteType(rawValue: 11)

    /// Every value this version knows, in numeric order.
    public static let allKnown: [RouteType] = [
        .unspecified, .unicast, .local, .broadcast, .anycast, .multicast, .blackhole, .unreachable,
        .prohibit, .throw, .nat, .xresolve,
    ]

    /// The kernel's constant name; `nil` for a value this version does not know.
    public var name: String? {
        switch rawValue {
        case 0: "RTN_UNSPEC"
        case 1: "RTN_UNICAST"
        case 2: "RTN_LOCAL"
        case 3: "RTN_BROADCAST"
        case 4: "RTN_ANYCAST"
        case 5: "RTN_MULTICAST"
        case 6: "RTN_BLACKHOLE"
        case 7: "RTN_UNREACHABLE"
        case 8: "RTN_PROHIBIT"
        case 9: "RTN_THROW"
        case 10: "RTN_NAT"
        case 11: "RTN_XRESOLVE"
        default: nil
        }
    }

    public var description: String {
        name ?? "RouteType(\(rawValue))"
    }
}
