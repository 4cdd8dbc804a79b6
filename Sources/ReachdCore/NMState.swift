/// NetworkManager's `NMState` (the manager's `State` property, `u`): every value, with NM's names.
///
/// A struct with static members rather than an enum, so a value a newer NetworkManager adds
/// survives: it is kept, compared and printed as a number instead of being lost or trapping.
/// `switch` over it needs a `default:`, which is where such a value lands.
/// Unknown values map like `unknown` (flags 0).
///
/// ```swift
/// let value = NMState(rawValue: 70)
/// value == .connectedGlobal       // true
/// print(value)                    // CONNECTED_GLOBAL
/// print(NMState(rawValue: 45))    // NMState(45)
/// ```
public struct NMState: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// `NM_STATE_UNKNOWN` (0): Networking state is unknown.
    public static let unknown = NMState(rawValue: 0)
    /// `NM_STATE_ASLEEP` (10): Networking is disabled, or the system is suspending or resuming.
    public static let asleep = NMState(rawValue: 10)
    /// `NM_STATE_DISCONNECTED` (20): There is no active network connection.
    public static let disconnected = NMState(rawValue: 20)
    /// `NM_STATE_DISCONNECTING` (30): Network connections are being cleaned up.
    public static let disconnecting = NMState(rawValue: 30)
    /// `NM_STATE_CONNECTING` (40): A network connection is being started.
    public static let connecting = NMState(rawValue: 40)
    /// `NM_STATE_CONNECTED_LOCAL` (50): Only local IPv4 or IPv6 connectivity, no default route.
    public static let connectedLocal = NMState(rawValue: 50)
    /// `NM_STATE_CONNECTED_SITE` (60): There is only site-wide IPv4 and/or IPv6 connectivity.
    public static let connectedSite = NMState(rawValue: 60)
    /// `NM_STATE_CONNECTED_GLOBAL` (70): There is global IPv4 and/or IPv6 Internet connectivity.
    public static let connectedGlobal = NMState(rawValue: 70)

    /// Every value this version knows, in numeric order.
    public static let allKnown: [NMState] = [
        .unknown, .asleep, .disconnected, .disconnecting, .connecting, .connectedLocal, .connectedSite,
        .connectedGlobal,
    ]

    /// NetworkManager's name without the `NM_STATE_` prefix; `nil` for a value this version does not know.
    public var name: String? {
        switch rawValue {
        case 0: "UNKNOWN"
        case 10: "ASLEEP"
        case 20: "DISCONNECTED"
        case 30: "DISCONNECTING"
        case 40: "CONNECTING"
        case 50: "CONNECTED_LOCAL"
        case 60: "CONNECTED_SITE"
        case 70: "CONNECTED_GLOBAL"
        default: nil
        }
    }

    public var description: String {
        name ?? "NMState(\(rawValue))"
    }
}
