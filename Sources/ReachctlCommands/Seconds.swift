import ReachdKit

/// A number of seconds on the command line: decimals allowed, `inf` (or `infinity`) for no limit
/// where the option takes it.
///
/// Any number parses, negative, huge and NaN ones too, so that the command can say which range
/// the option takes (`--timeout must be from 0 to 31536000 seconds …; got 1e19`) instead of a
/// generic "invalid value". A number beyond the range never becomes a
/// `Duration`: `1e19` seconds trapped in `Duration.components` and killed reachctl by SIGILL
/// (issue 29). Only the words mean no limit: `1e400`, which `Double` reads as infinity, is out
/// of range like `1e19`.
struct Seconds: Equatable {
    /// What any option of seconds takes: up to a year (OptionRange).
    static let range = OptionRange.seconds(from: 0)

    /// `inf` or `infinity`.
    let isUnlimited: Bool
    /// The seconds, when they lie in `range`; nil when unlimited or out of range.
    let duration: Duration?
    /// As the user wrote it, for messages.
    let text: String

    init(_ whole: Int) {
        isUnlimited = false
        duration = Self.range.duration(whole)
        text = String(whole)
    }

    init?(argument: String) {
        text = argument
        if ["inf", "infinity"].contains(argument.lowercased()) {
            isUnlimited = true
            duration = nil
        } else {
            guard let number = Double(argument) else { return nil }
            isUnlimited = false
            duration = Self.range.duration(seconds: number)
        }
    }

    /// How the range reads in an option's refusal and help.
    static var rangeText: String {
        "from \(range.lowest) to \(range.highest) seconds (a year; decimals allowed)"
    }

    /// A duration as seconds for a message: `30`, `2.5`.
    static func text(of duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        guard attoseconds != 0 else { return String(seconds) }
        return String(Double(seconds) + Double(attoseconds) / 1e18)
    }
}
