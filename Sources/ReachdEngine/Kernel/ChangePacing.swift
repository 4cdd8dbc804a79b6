/// When the engine evaluates the next kernel change: at once while its budget lasts, and one per
/// `interval` under sustained churn (contract 7, §1). A bring-up is a link, its address and its
/// route a few milliseconds apart, which the kernel announces in about eight messages (the link
/// twice, the address, its local, broadcast and prefix routes, the default route); a loss as many.
/// Each is evaluated as it comes, so the network coming up is published within milliseconds: with
/// a budget of four, the last of them waited for a token (Scripts/bench's bring-up rows: 197 ms
/// median, to the in-process monitor and over D-Bus alike). A routing daemon rewriting routes for
/// minutes costs what it did: four evaluations a second, after the first `burst`.
///
/// A token bucket: `burst` evaluations may be spent at once; one comes back each `interval`.
/// Pure: the time is passed in.
///
/// ```swift
/// var pacing = ChangePacing()
/// pacing.delay(at: .now)   // .zero: evaluate at once
/// ```
struct ChangePacing: Sendable, Equatable {
    let burst: Int
    let interval: Duration
    private var tokens: Int
    /// When the last token came back (or the bucket was last full).
    private var refilled: ContinuousClock.Instant?

    init(burst: Int = 8, interval: Duration = .milliseconds(250)) {
        self.burst = max(burst, 1)
        self.interval = interval
        tokens = self.burst
    }

    /// How long to wait before evaluating a change that arrives at `now` (zero: at once), and
    /// that evaluation counted.
    mutating func delay(at now: ContinuousClock.Instant) -> Duration {
        refill(at: now)
        if tokens > 0 {
            tokens -= 1
            return .zero
        }
        // Empty: the evaluation takes the next token, when it comes.
        let next = (refilled ?? now) + interval
        refilled = next
        return max(next - now, .zero)
    }

    private mutating func refill(at now: ContinuousClock.Instant) {
        guard let last = refilled else {
            refilled = now
            return
        }
        guard now > last else { return }
        let gained = Int((now - last) / interval)
        guard gained > 0 else { return }
        tokens = min(burst, tokens + gained)
        refilled = tokens == burst ? now : last + interval * gained
    }
}
