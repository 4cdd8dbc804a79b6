/// NetworkManager's `NMDeviceState` (a device's `State` property, `u`): every value, with NM's names.
///
/// A struct with static members rather than an enum, as `NMState`: a value a newer NetworkManager
/// adds is kept and printed as a number.
///
/// ```swift
/// NMDeviceState(rawValue: 10) == .unmanaged   // true
/// print(NMDeviceState.activated)              // ACTIVATED
/// ```
public struct NMDeviceState: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// `NM_DEVICE_STATE_UNKNOWN` (0): the device's state is unknown.
    public static let unknown = NMDeviceState(rawValue: 0)
    /// `NM_DEVICE_STATE_UNMANAGED` (10): the device is recognized, but not managed by NetworkManager.
    public static let unmanaged = NMDeviceState(rawValue: 10)
    /// `NM_DEVICE_STATE_UNAVAILABLE` (20): managed, but not available for use (no carrier, rfkill).
    public static let unavailable = NMDeviceState(rawValue: 20)
    /// `NM_DEVICE_STATE_DISCONNECTED` (30): can be activated, but is not active.
    public static let disconnected = NMDeviceState(rawValue: 30)
    /// `NM_DEVICE_STATE_PREPARE` (40): preparing the connection.
    public static let prepare = NMDeviceState(rawValue: 40)
    /// `NM_DEVICE_STATE_CONFIG` (50): connecting to the network.
    public static let config = NMDeviceState(rawValue: 50)
    /// `NM_DEVICE_STATE_NEED_AUTH` (60): needs more information (a secret).
    public static let needAuth = NMDeviceState(rawValue: 60)
    /// `NM_DEVICE_STATE_IP_CONFIG` (70): requesting IPv4 and/or IPv6 addresses and routing.
    public static let ipConfig = NMDeviceState(rawValue: 70)
    /// `NM_DEVICE_STATE_IP_CHECK` (80): checking whether further action is required.
    public static let ipCheck = NMDeviceState(rawValue: 80)
    /// `NM_DEVICE_STATE_SECONDARIES` (90): waiting for a secondary connection (a VPN).
    public static let secondaries = NMDeviceState(rawValue: 90)
    /// `NM_DEVICE_STATE_ACTIVATED` (100): has a network connection.
    public static let activated = NMDeviceState(rawValue: 100)
    /// `NM_DEVICE_STATE_DEACTIVATING` (110): disconnecting.
    public static let deactivating = NMDeviceState(rawValue: 110)
    /// `NM_DEVICE_STATE_FAILED` (120): failed to connect.
    public static let failed = NMDeviceState(rawValue: 120)

    /// Every value this version knows, in numeric order.
    public static let allKnown: [NMDeviceState] = [
        .unknown, .unmanaged, .unavailable, .disconnected, .prepare, .config, .needAuth, .ipConfig,
        .ipCheck, .secondaries, .activated, .deactivating, .failed,
    ]

    /// NetworkManager's name without the `NM_DEVICE_STATE_` prefix; `nil` for a value this version does not know.
    public var name: String? {
        switch rawValue {
        case 0: "UNKNOWN"
        case 10: "UNMANAGED"
        case 20: "UNAVAILABLE"
        case 30: "DISCONNECTED"
        case 40: "PREPARE"
        case 50: "CONFIG"
        case 60: "NEED_AUTH"
        case 70: "IP_CONFIG"
        case 80: "IP_CHECK"
        case 90: "SECONDARIES"
        case 100: "ACTIVATED"
        case 110: "DEACTIVATING"
        case 120: "FAILED"
        default: nil
        }
    }

    public var description: String {
        name ?? "NMDeviceState(\(rawValue))"
    }
}
