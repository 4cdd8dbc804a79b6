/// NetworkManager's `NMMetered` (the manager's and a device's `Metered` property, `u`): every value,
/// with NM's names.
///
/// A struct with static members rather than an enum, so a value a newer NetworkManager adds
/// survives: it is kept, compared and printed as a number instead of being lost or trapping.
/// `switch` over it needs a `default:`, which is where such a value lands.
/// Unknown values map like `unknown`.
///
/// ```swift
/// let value = NMMetered(rawValue: 1)
/// value == .yes                   // true
/// print(value)                    // YES
/// print(NMMetered(rawValue: 7))   // NMMetered(7)
/// ```
public struct NMMetered: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// `NM_METERED_UNKNOWN` (0): The metered status is unknown.
    public static let unknown = NMMetered(rawValue: 0)
    /// `NM_METERED_YES` (1): Metered, the value was explicitly configured.
    public static let yes = NMMetered(rawValue: 1)
    /// `NM_METERED_NO` (2): Not metered, the value was explicitly configured.
    public static let no = NMMetered(rawValue: 2)
    /// `NM_METERED_GUESS_YES` (3): Metered, the value was guessed.
    public static let guessYes = NMMetered(rawValue: 3)
    /// `NM_METERED_GUESS_NO` (4): Not metered, the value was guessed.
    public static let guessNo = NMMetered(rawValue: 4)

    /// Every value this version knows, in numeric order.
    public static let allKnown: [NMMetered] = [
        .unknown, .yes, .no, .guessYes, .guessNo,
    ]

    /// NetworkManager's name without the `NM_METERED_` prefix; `nil` for a value this version does not know.
    public var name: String? {
        switch rawValue {
        case 0: "UNKNOWN"
        case 1: "YES"
        case 2: "NO"
        case 3: "GUESS_YES"
        case 4: "GUESS_NO"
        default: nil
        }
    }

    public var description: String {
        name ?? "NMMetered(\(rawValue))"
    }
}
