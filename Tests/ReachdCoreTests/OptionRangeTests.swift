import PropertyBased
import ReachdCore
import Testing

/// The numbers people give reachd's and reachctl's options and reachd.conf's keys: over the
/// whole range of what can be written (every `Int`, every `Double` bit pattern — NaN, infinities,
/// 1e300, subnormals — and digit strings longer than any integer type), a value is taken only
/// inside its documented range, and a taken value survives every conversion the binaries make
/// of it (a `Duration`'s components, epoll's milliseconds, nanoseconds for Swift's sleep).
@Suite("Ranges of the options' numbers")
struct OptionRangeTests {
    /// The ranges reachd and reachctl use.
    static let ranges: [OptionRange] = [
        .seconds(from: 0), .seconds(from: 1), .milliseconds(from: 0), .count(from: 1, to: 1_000_000),
    ]

    /// Whether `duration` can go through each conversion the binaries make without trapping,
    /// computed without trapping: `Duration.components` traps beyond `Int64` seconds.
    static func survivesConversions(_ duration: Duration) -> Bool {
        guard duration >= .zero, duration <= OptionRange.longestDuration else { return false }
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return !milliseconds.overflow && !nanoseconds.overflow
            && !nanoseconds.partialValue.addingReportingOverflow(attoseconds / 1_000_000_000).overflow
    }

    @Test("every Int is taken exactly when it lies in the range, and its duration survives every conversion")
    func everyIntegerInItsRange() async {
        func check(_ range: OptionRange, _ number: Int) {
            let taken = range.wholeNumber(String(number))
            #expect(taken == ((range.lowest...range.highest).contains(number) ? number : nil), "\(range): \(number)")
            if let taken { #expect(Self.survivesConversions(range.duration(taken)), "\(range): \(taken)") }
        }
        for range in Self.ranges {
            await propertyCheck(count: 1000, input: Gen.int()) { check(range, $0) }
            // Near the bounds, where an off-by-one would show.
            await propertyCheck(count: 200, input: Gen.int(in: -2...2)) { offset in
                check(range, range.lowest + offset)
                check(range, range.highest + offset)
            }
        }
    }

    @Test("no Double, written any way, is taken as a whole number out of range")
    func everyDoubleAsText() async {
        await propertyCheck(count: 2000, input: Gen.uint64().map { Double(bitPattern: $0) }) { value in
            for range in Self.ranges {
                for text in [String(value), "\(value)", String(describing: value.rounded(.towardZero))] {
                    guard let taken = range.wholeNumber(text) else { continue }
                    #expect((range.lowest...range.highest).contains(taken), "\(range): \(text)")
                    #expect(Self.survivesConversions(range.duration(taken)), "\(range): \(text)")
                }
            }
        }
    }

    @Test("decimal seconds: every Double is taken only inside the range, never NaN or infinite")
    func everyDoubleAsSeconds() async {
        let range = OptionRange.seconds(from: 0)
        await propertyCheck(count: 5000, input: Gen.uint64().map { Double(bitPattern: $0) }) { value in
            let duration = range.duration(seconds: value)
            let inside = value.isFinite && value >= 0 && value <= Double(OptionRange.secondsInAYear)
            #expect((duration != nil) == inside, "\(value)")
            if let duration { #expect(Self.survivesConversions(duration), "\(value)") }
        }
        // Inside the range, evenly: the duration is the number of seconds.
        await propertyCheck(count: 1000, input: Gen.double(in: 0...Double(OptionRange.secondsInAYear))) { value in
            let duration = try #require(range.duration(seconds: value))
            let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
            #expect(abs(seconds - value) <= 1e-6 * max(1, value), "\(value) became \(duration)")
        }
    }

    @Test("digit strings longer than any integer type are refused, not wrapped or trapped")
    func longDigitStrings() async {
        let digits = Gen.number.string(of: 1...60)
        await propertyCheck(count: 1000, input: digits) { text in
            for range in Self.ranges {
                for signed in [text, "-" + text, "+" + text] {
                    guard let taken = range.wholeNumber(signed) else { continue }
                    #expect(Int(signed) == taken && (range.lowest...range.highest).contains(taken), "\(range): \(signed)")
                }
            }
        }
    }

    @Test("the hard cases of the issue: huge, negative, NaN, inf, exponents, blanks are refused",
          arguments: ["1e19", "99999999999999999999", "1e300", "1e16", "10000000000000000", "9223372036854775807",
                      "9223372036854775808", "-9223372036854775808", "-1", "nan", "NaN", "inf", "-inf", "infinity",
                      "1.5", "0x10", " 1", "1 ", "", "1_000", "٣", "31536001", "31536000000001"])
    func hardCasesAreRefused(text: String) {
        #expect(OptionRange.seconds(from: 0).wholeNumber(text) == nil)
        #expect(OptionRange.count(from: 1, to: 1_000_000).wholeNumber(text) == nil)
        if text != "31536001" {
            #expect(OptionRange.milliseconds(from: 0).wholeNumber(text) == nil)
        }
    }

    @Test("the bounds themselves are taken, and the sentence names them")
    func boundsAreTaken() {
        #expect(OptionRange.seconds(from: 0).wholeNumber("0") == 0)
        #expect(OptionRange.seconds(from: 0).wholeNumber("31536000") == 31_536_000)
        #expect(OptionRange.seconds(from: 1).wholeNumber("0") == nil)
        #expect(OptionRange.milliseconds(from: 0).wholeNumber("31536000000") == 31_536_000_000)
        #expect(OptionRange.seconds(from: 0).duration(seconds: 31_536_000) == .seconds(31_536_000))
        #expect(OptionRange.seconds(from: 0).duration(seconds: 31_536_000.001) == nil)
        #expect(OptionRange.seconds(from: 0).duration(seconds: -0.0) == .zero)
        #expect(OptionRange.seconds(from: 0).description == "a whole number of seconds from 0 to 31536000 (a year)")
        #expect(OptionRange.milliseconds(from: 0).description == "a whole number of milliseconds from 0 to 31536000000 (a year)")
        #expect(OptionRange.count(from: 1, to: 1_000_000).description == "a whole number from 1 to 1000000")
    }
}
