/// How reachd retries after a transient failure (a route lookup the kernel did not answer, a
/// NetworkManager `GetAll` that timed out): the first retry after `first`, each next one after
/// twice the last, never more than `limit` apart, for as long as the failure lasts.
///
/// A transient failure is never published as a fact: whoever retries keeps its last good value
/// meanwhile, logs the first failure of a streak at warning, and the recovery at notice
/// (docs/design.md, "Errors").
///
/// ```swift
/// var backoff = RetryBackoff()
/// backoff.next()   // 100 ms
/// backoff.next()   // 200 ms
/// backoff.reset()  // after a success
/// ```
struct RetryBackoff: Sendable, Equatable {
    let first: Duration
    let limit: Duration
    private(set) var failures = 0

    init(first: Duration = .milliseconds(100), limit: Duration = .seconds(5)) {
        self.first = first
        self.limit = limit
    }

    /// Whether a failure streak is going on (the last attempt failed).
    var isFailing: Bool { failures > 0 }

    /// Counts one more failure and returns how long to wait before the next attempt.
    mutating func next() -> Duration {
        failures += 1
        var delay = first
        for _ in 1..<min(failures, 32) where delay < limit { delay *= 2 }
        return min(delay, limit)
    }

    /// Ends a failure streak; returns whether there was one.
    @discardableResult
    mutating func reset() -> Bool {
        defer { failures = 0 }
        return failures > 0
    }
}
