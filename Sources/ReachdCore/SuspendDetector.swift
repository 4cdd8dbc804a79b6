/// Tells a suspend from the clocks, where no logind announces it (containers, systems without
/// systemd): the boot-time clock counts time asleep and the monotonic clock does not, so their
/// difference grows by the time slept. Checked only when an event arrives: no timer, no idle cost.
///
/// ```swift
/// var detector = SuspendDetector()
/// detector.sleptSinceLastCheck(bootTime: .seconds(100), monotonic: .seconds(100))   // false
/// detector.sleptSinceLastCheck(bootTime: .seconds(3700), monotonic: .seconds(110))  // true: an hour asleep
/// ```
public struct SuspendDetector: Sendable, Equatable {
    /// How much the difference must grow to count as a sleep.
    public let threshold: Duration
    private var lastDifference: Duration?

    public init(threshold: Duration = .seconds(5)) {
        self.threshold = threshold
    }

    /// Whether the machine slept since the last check (never on the first).
    public mutating func sleptSinceLastCheck(bootTime: Duration, monotonic: Duration) -> Bool {
        let difference = bootTime - monotonic
        defer { lastDifference = difference }
        guard let lastDifference else { return false }
        return difference - lastDifference > threshold
    }
}
