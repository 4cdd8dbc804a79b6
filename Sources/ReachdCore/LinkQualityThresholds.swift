/// Where link quality changes grade (docs/mapping.md, "Link quality").
///
/// Signal percentages are NetworkManager's (`Strength`: 100 at −40 dBm or better, 0 at −100 dBm,
/// linear between), which ConnMan's and ModemManager's percentages resemble:
/// - `good` from 55 % (about −67 dBm, the level commonly asked for voice and video over Wi-Fi);
/// - `moderate` from 30 % (about −82 dBm, near where 802.11's lowest rates still hold);
/// - `minimal` below.
/// A grade changes only once the signal is `hysteresis` points past the threshold on the far side,
/// so a signal fluttering within ±5 points of a threshold (about ±3 dB, ordinary fading) costs no change.
///
/// Ethernet: `good` from 100 Mb/s, `moderate` from 10 Mb/s, `minimal` below; the speed is a
/// negotiated value, so no band is needed.
///
/// ```swift
/// LinkQualityThresholds.standard.gradeSignal(57, previous: .moderate)   // .moderate: not past 60 yet
/// LinkQualityThresholds.standard.gradeSignal(61, previous: .moderate)   // .good
/// ```
public struct LinkQualityThresholds: Sendable, Hashable {
    public var signalGood: Int
    public var signalModerate: Int
    public var hysteresis: Int
    public var speedGood: UInt32
    public var speedModerate: UInt32

    public init(signalGood: Int, signalModerate: Int, hysteresis: Int, speedGood: UInt32, speedModerate: UInt32) {
        self.signalGood = signalGood
        self.signalModerate = signalModerate
        self.hysteresis = hysteresis
        self.speedGood = speedGood
        self.speedModerate = speedModerate
    }

    public static let standard = LinkQualityThresholds(
        signalGood: 55, signalModerate: 30, hysteresis: 5, speedGood: 100, speedModerate: 10)

    /// The grade of a signal of `percent`, kept at `previous` while within the band around the
    /// threshold between them.
    public func gradeSignal(_ percent: Int, previous: LinkQuality) -> LinkQuality {
        let plain = plainSignalGrade(percent)
        guard previous != .unknown, plain != previous else { return plain }
        // Moving up: the signal must clear the threshold above `previous` by the band; moving
        // down: fall below the threshold of `previous` by the band.
        let stays = plain > previous
            ? percent < threshold(above: previous) + hysteresis
            : percent >= threshold(of: previous) - hysteresis
        return stays ? previous : plain
    }

    public func gradeSpeed(_ megabits: UInt32) -> LinkQuality {
        megabits >= speedGood ? .good : megabits >= speedModerate ? .moderate : .minimal
    }

    private func plainSignalGrade(_ percent: Int) -> LinkQuality {
        percent >= signalGood ? .good : percent >= signalModerate ? .moderate : .minimal
    }

    /// The lowest signal of `grade`.
    private func threshold(of grade: LinkQuality) -> Int {
        switch grade {
        case .good: signalGood
        case .moderate: signalModerate
        case .minimal, .unknown: Int.min / 2
        }
    }

    /// The lowest signal of the grade above `grade`.
    private func threshold(above grade: LinkQuality) -> Int {
        switch grade {
        case .minimal, .unknown: signalModerate
        case .moderate: signalGood
        case .good: Int.max / 2
        }
    }
}
