import Foundation

/// A deadline for a wait on something the test started (a daemon owning its name, a first answer,
/// a tool exiting) that counts only the time the machine had CPU to give.
///
/// On this project's two shared cores a daemon that had no CPU for ten seconds is slow, not broken,
/// and a wait that fails then proves nothing (issue 46: waits of 15 s for a first status failed while
/// the suite drove the load average to 17). So the budget is charged with wall time less the time the
/// kernel's pressure stall information says some task was runnable and waiting for a CPU
/// (`/proc/pressure/cpu`, "some … total=" in microseconds): on an idle machine the two are the same and
/// a wait fails after its timeout, as before; on a saturated one the budget is barely charged and the
/// wait goes on, up to `ceiling` of wall time, which a thing that is truly stuck reaches.
///
/// Product bounds (a change heard within 1 s) are never measured this way: they run from the event's
/// timestamp to the answer's (`KernelRouteEvents`, `OutputStamps`).
public struct PatientDeadline: Sendable {
    /// How many times the timeout a wait may take on a machine with no CPU to spare.
    public static let ceilingFactor = 6
    /// The longest any wait goes on, whatever its timeout: the suites' time limits stay above it.
    public static let longestCeiling: Duration = .seconds(180)

    public let timeout: Duration
    private let start: ContinuousClock.Instant
    private let ceiling: ContinuousClock.Instant
    private let stalledAtStart: UInt64?

    public init(timeout: Duration) {
        self.timeout = timeout
        start = .now
        ceiling = start + max(timeout, min(timeout * Self.ceilingFactor, Self.longestCeiling))
        stalledAtStart = Self.cpuStallMicroseconds()
    }

    /// The wall time since the wait began.
    public var elapsed: Duration { .now - start }

    /// The time charged to the budget: wall time less the time the machine had no CPU to give.
    public var charged: Duration {
        let wall = elapsed
        guard let stalledAtStart, let stalledNow = Self.cpuStallMicroseconds(), stalledNow >= stalledAtStart else { return wall }
        let stalled = Duration.microseconds(Int64(clamping: stalledNow - stalledAtStart))
        return max(.zero, wall - stalled)
    }

    /// Reads `/proc/pressure/cpu` only once the wall clock alone has reached the timeout (the charged
    /// time is never more): the waits poll every few milliseconds.
    public var hasPassed: Bool {
        let now = ContinuousClock.now
        guard now - start >= timeout else { return false }
        return now >= ceiling || charged >= timeout
    }

    /// For failure messages: how long the wait went on and how much of it the machine was busy.
    public var account: String {
        let wall = elapsed
        let busy = wall - charged
        return "\(timeout) with CPU to spare (waited \(Self.seconds(wall)) s, \(Self.seconds(busy)) s of it with tasks waiting for a CPU)"
    }

    private static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.1f", Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// `/proc/pressure/cpu`'s cumulative "some" stall, in microseconds; nil where the kernel has no PSI.
    static func cpuStallMicroseconds() -> UInt64? {
        guard let text = try? String(contentsOfFile: "/proc/pressure/cpu", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("some ") }),
              let field = line.split(separator: " ").first(where: { $0.hasPrefix("total=") }) else { return nil }
        return UInt64(field.dropFirst("total=".count))
    }
}
