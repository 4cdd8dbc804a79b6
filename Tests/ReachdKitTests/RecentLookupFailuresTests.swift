@testable import SystemConfiguration
import Testing

/// What `SCNetworkReachabilityGetFlags` remembers of a failed lookup (issue 39): flags 0 for a
/// while, forgotten by any other answer, by time, and beyond a bounded number of names.
@Suite("SystemConfiguration: recent lookup failures")
struct RecentLookupFailuresTests {
    @Test func aFailureIsRememberedAndAnyOtherAnswerForgetsIt() {
        let failures = RecentLookupFailures()
        #expect(!failures.recentFailure(of: "example.org"))
        failures.heard(.success([]), for: "example.org")
        #expect(failures.recentFailure(of: "example.org"))
        #expect(!failures.recentFailure(of: "example.net"), "per name")
        failures.heard(.success([.reachable]), for: "example.org")
        #expect(!failures.recentFailure(of: "example.org"), "a lookup that answered")
        failures.heard(.success([]), for: "example.org")
        failures.heard(.failure(.reachabilityUnknown), for: "example.org")
        #expect(!failures.recentFailure(of: "example.org"), "no answer is no failure")
    }

    @Test func aFailureIsForgottenAfterItsLifetime() {
        let failures = RecentLookupFailures(lifetime: .nanoseconds(0))
        failures.heard(.success([]), for: "example.org")
        #expect(!failures.recentFailure(of: "example.org"))
    }

    @Test func theOldestFailureGoesBeyondTheCapacity() {
        let failures = RecentLookupFailures(capacity: 2)
        for name in ["a.example", "b.example", "c.example"] { failures.heard(.success([]), for: name) }
        #expect(!failures.recentFailure(of: "a.example"))
        #expect(failures.recentFailure(of: "b.example") && failures.recentFailure(of: "c.example"))
    }
}
