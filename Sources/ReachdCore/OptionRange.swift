/// The range a number given to an option of reachd or reachctl, or to a key of reachd.conf, must
/// lie in: a duration (whole seconds, whole milliseconds, or reachctl's decimal seconds) or a count.
///
/// Every number a person writes is checked against one of these where it is read, before it
/// becomes a `Duration`, a deadline or a count: the conversions after that trap above their
/// types' range (a `Duration`'s whole seconds in `Int64`, a deadline's milliseconds for epoll,
/// Swift's sleep in nanoseconds), and a trap kills the binary by SIGILL with nothing in its log.
/// The longest duration is one year: far beyond any useful wait, far inside each of those ranges
/// (nanoseconds in `Int64` reach 292 years).
///
/// ```swift
/// let interval = OptionRange.seconds(from: 0)
/// interval.wholeNumber("300")    // 300
/// interval.wholeNumber("1e16")   // nil
/// interval.description           // "a whole number of seconds from 0 to 31536000 (a year)"
/// ```
public struct OptionRange: Sendable, Equatable, CustomStringConvertible {
    public enum Unit: String, Sendable {
        case seconds, milliseconds
        /// A number of things (host monitors), not a duration.
        case count
    }

    public let lowest: Int
    public let highest: Int
    public let unit: Unit

    /// 365 days, the longest duration any option takes.
    public static let secondsInAYear = 31_536_000
    public static let longestDuration = Duration.seconds(secondsInAYear)

    /// Whole seconds from `lowest` up to a year.
    public static func seconds(from lowest: Int) -> OptionRange {
        OptionRange(lowest: lowest, highest: secondsInAYear, unit: .seconds)
    }

    /// Whole milliseconds from `lowest` up to a year.
    public static func milliseconds(from lowest: Int) -> OptionRange {
        OptionRange(lowest: lowest, highest: secondsInAYear * 1000, unit: .milliseconds)
    }

    public static func count(from lowest: Int, to highest: Int) -> OptionRange {
        OptionRange(lowest: lowest, highest: highest, unit: .count)
    }

    private init(lowest: Int, highest: Int, unit: Unit) {
        precondition(lowest <= highest)
        self.lowest = lowest
        self.highest = highest
        self.unit = unit
    }

    /// What the range takes, as the end of a sentence that starts with the option ("needs …").
    public var description: String {
        switch unit {
        case .seconds, .milliseconds: "a whole number of \(unit.rawValue) from \(lowest) to \(highest) (a year)"
        case .count: "a whole number from \(lowest) to \(highest)"
        }
    }

    /// `text` as a whole number in decimal digits within the range; nil for anything else
    /// (a decimal point, an exponent, blanks, a number too large for `Int`, one out of range).
    public func wholeNumber(_ text: String) -> Int? {
        guard let number = Int(text), number >= lowest, number <= highest else { return nil }
        return number
    }

    /// A whole number this range took, as the duration it stands for (zero for a count).
    public func duration(_ number: Int) -> Duration {
        precondition(number >= lowest && number <= highest, "\(number) is outside \(self)")
        switch unit {
        case .seconds: return .seconds(number)
        case .milliseconds: return .milliseconds(number)
        case .count: return .zero
        }
    }

    /// Seconds with decimals (reachctl's `--timeout 2.5`) as a duration, when they lie within the
    /// range; nil for NaN, infinity, or a value out of range. Only for a range of seconds.
    public func duration(seconds: Double) -> Duration? {
        precondition(unit == .seconds, "decimal seconds are read against a range of seconds")
        guard seconds >= Double(lowest), seconds <= Double(highest) else { return nil }  // false for NaN
        return .seconds(seconds)
    }
}
