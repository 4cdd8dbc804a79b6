/// NetworkManager's `NMConnectivityState` (the manager's `Connectivity` property, `u`): every value,
/// with NM's names.
///
/// A struct with static members rather than an enum, so a value a newer NetworkManager adds
/// survives: it is kept, compared and printed as a number instead of being lost or trapping.
/// `switch` over it needs a `default:`, which is where such a value lands.
/// Unknown values map like `unknown`.
///
/// ```swift
/// let value = NMConnectivityState(rawValue: 2)
/// value == .portal                // true
/// print(value)                    // PORTAL
/// print(NMConnectivityState(rawValue: 9))// NMConnectivityState(9)
/// ```
public struct NMConnectivityState: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// `NM_CONNECTIVITY_UNKNOWN` (0): Unknown: the check is disabled or has not run yet.
    public static let unknown = NMConnectivityState(rawValue: 0)
    /// `NM_CONNECTIVITY_NONE` (1): The host is not connected to any network.
    public static let none = NMConnectivityState(rawValue: 1)
    /// `NM_CONNECTIVITY_PORTAL` (2): The Internet connection is hijacked by a captive portal gateway.
    public static let portal = NMConnectivityState(rawValue: 2)
    /// `NM_CONNECTIVITY_LIMITED` (3): Connected to a network, but the full Internet seems out of reach.
    public static let limited = NMConnectivityState(rawValue: 3)
    /// `NM_CONNECTIVITY_FULL` (4): Connected to a network that appears to reach the full Internet.
    public static let full = NMConnectivityState(rawValue: 4)

    /// Every value this version knows, in numeric order.
    public static let allKnown: [NMConnectivityState] = [
        .unknown, .none, .portal, .limited, .full,
    ]

    /// NetworkManager's name without the `NM_CONNECTIVITY_` prefix; `nil` for a value this version does not know.
    public var name: String? {
        switch rawValue {
        case 0: "UNKNOWN"
        case 1: "NONE"
        case 2: "PORTAL"
        case 3: "LIMITED"
        case 4: "FULL"
        default: nil
        }
    }

    public var description: String {
        name ?? "NMConnectivityState(\(rawValue))"
    }
}
