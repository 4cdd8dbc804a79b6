/// Deadlines for one event loop, earliest first. Confined to the loop thread.
public struct TimerQueue {
    public struct TimerID: Hashable, Sendable {
        fileprivate let value: Int
    }

    private struct Entry {
        let id: TimerID
        let deadline: ContinuousClock.Instant
        let action: () -> Void
    }

    // Few timers are live at once (libdbus reply timeouts, settle delays),
    // so a sorted array beats a heap in both code and speed.
    private var entries: [Entry] = []
    private var nextID = 0

    mutating func schedule(at deadline: ContinuousClock.Instant, _ action: @escaping () -> Void) -> TimerID {
        nextID += 1
        let id = TimerID(value: nextID)
        let index = entries.firstIndex { $0.deadline > deadline } ?? entries.endIndex
        entries.insert(Entry(id: id, deadline: deadline, action: action), at: index)
        return id
    }

    mutating func cancel(_ id: TimerID) {
        entries.removeAll { $0.id == id }
    }

    /// The `epoll_wait` timeout: -1 with no timers, else milliseconds rounded up, at most
    /// `Int32.max` (24.8 days; the loop then wakes and asks again).
    ///
    /// Compared before it is converted: `Duration.components` traps beyond `Int64` seconds, and
    /// seconds times 1000 overflowed beyond 292 million years, which a deadline `.seconds(1e16)`
    /// away reached (`--connectivity-interval 10000000000000000` killed reachd by SIGILL).
    func millisecondsUntilNextDeadline(now: ContinuousClock.Instant) -> Int32 {
        guard let first = entries.first else { return -1 }
        let remaining = now.duration(to: first.deadline)
        if remaining <= .zero { return 0 }
        if remaining >= .milliseconds(Int32.max) { return Int32.max }
        let (seconds, attoseconds) = remaining.components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }

    /// Removes every timer whose deadline has passed and returns their actions in
    /// deadline order; the caller runs them, so an action may schedule again.
    mutating func takeExpired(now: ContinuousClock.Instant) -> [() -> Void] {
        let expired = entries.prefix { $0.deadline <= now }
        guard !expired.isEmpty else { return [] }
        entries.removeFirst(expired.count)
        return expired.map(\.action)
    }
}
