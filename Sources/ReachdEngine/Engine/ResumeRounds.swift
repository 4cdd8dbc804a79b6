/// When the resynchronisations after a resume run: one at wake and one `spacing` later (a resume
/// settles in steps), and never two within `spacing` of each other, however many resumes are
/// announced. A wake during the rounds of an earlier one owes both rounds again, each at its
/// earliest allowed time, so the last wake is always followed by a round at least `spacing`
/// after it. Confined to one task; instants come from the caller, so it is a plain value.
///
/// ```swift
/// var rounds = ResumeRounds()
/// rounds.woke()
/// rounds.due(after: now)   // now
/// rounds.ran(at: now)      // "at wake"; the next is due at now + 5 s
/// ```
struct ResumeRounds {
    /// 5 s: the step a resume settles in (a second round then catches what came late), and a
    /// bound on cost that holds for any number of announcements: at most 12 rounds a minute, each
    /// one NetworkManager (or ConnMan) read, one kernel recomputation and one lookup of each
    /// watched name (docs/design.md, "Sleep and resume").
    static let spacing: Duration = .seconds(5)

    /// Rounds owed: 2 after a wake (at wake, then the follow-up), 1 after the first of them.
    private(set) var owed = 0
    private(set) var lastRound: ContinuousClock.Instant?

    /// A resume was announced.
    mutating func woke() { owed = 2 }

    /// When the next owed round may run, nil when none is owed.
    func due(after now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        guard owed > 0 else { return nil }
        guard let lastRound else { return now }
        return max(now, lastRound + Self.spacing)
    }

    /// A round ran; returns what the log calls it.
    mutating func ran(at now: ContinuousClock.Instant) -> String {
        defer {
            owed = max(owed - 1, 0)
            lastRound = now
        }
        return owed >= 2 ? "at wake" : "5 s after wake"
    }
}
