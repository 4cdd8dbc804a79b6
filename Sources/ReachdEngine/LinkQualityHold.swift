import ReachdCore

/// Publishes link quality at most once per `minimum` on one link, so that a signal fluttering
/// across a threshold (past the hysteresis band, `LinkQualityThresholds`) costs clients at most one
/// change every few seconds. A change of link, or to or from `unknown` (a path appearing or going),
/// is published at once: holding it would describe another link.
///
/// A value type with the clock passed in; the merger arms one timer for `wait` when a change is held.
///
/// ```swift
/// var hold = LinkQualityHold()
/// hold.decide(.good, interface: "wlan0", now: t0)             // (.good, nil)
/// hold.decide(.minimal, interface: "wlan0", now: t0 + 1 s)    // (.good, 4 s): held
/// ```
struct LinkQualityHold: Sendable {
    static let minimum: Duration = .seconds(5)

    private(set) var published: LinkQuality = .unknown
    private var interface = ""
    private var changedAt: ContinuousClock.Instant?

    /// The grade `published` had for `interface`: the previous grade for hysteresis, `unknown`
    /// when the link is another one.
    func previous(for interface: String) -> LinkQuality {
        interface == self.interface ? published : .unknown
    }

    /// What to publish for `graded` on `interface` now, and, when a change is held, how long until
    /// it may be published.
    mutating func decide(_ graded: LinkQuality, interface: String, now: ContinuousClock.Instant)
        -> (quality: LinkQuality, wait: Duration?) {
        let sameLink = interface == self.interface && published != .unknown && graded != .unknown
        if sameLink, graded != published, let changedAt, now - changedAt < Self.minimum {
            return (published, Self.minimum - (now - changedAt))
        }
        if graded != published || interface != self.interface {
            if graded != published { changedAt = now }
            published = graded
            self.interface = interface
        }
        return (published, nil)
    }
}
