/// How good the path's link-layer attachment is: the D-Bus `LinkQuality` property (`s`, the raw
/// value), and Apple's `NWPath.LinkQuality` (iOS 26) in the `Network` front end.
///
/// Apple: "the link quality measurement of the link layer network attachment", meant "to tune
/// initial values", "not to gate connection attempts". reachd grades a measurement where Linux has
/// one (`LinkQualityInputs`) and says `unknown` everywhere else; docs/mapping.md has the thresholds.
///
/// ```swift
/// LinkQuality.good.rawValue   // "good"
/// ```
public enum LinkQuality: String, Sendable, CaseIterable, Comparable {
    /// Nothing measured: no path, a medium without a measurement (VPN, Bluetooth, other), or no
    /// source that says.
    case unknown
    /// Expect it to be unreliable.
    case minimal
    /// It may not support high bandwidth.
    case moderate
    case good

    public static func < (lhs: LinkQuality, rhs: LinkQuality) -> Bool {
        lhs.rank < rhs.rank
    }

    private var rank: Int {
        switch self {
        case .unknown: 0
        case .minimal: 1
        case .moderate: 2
        case .good: 3
        }
    }
}
