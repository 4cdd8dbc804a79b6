import Dispatch
import Synchronization

/// The names whose lookup failed a moment ago, so that `SCNetworkReachabilityGetFlags` polled on a
/// broken resolver answers each call alike, as Apple's does from mDNSResponder's negative cache.
///
/// Why it is needed: a resolver that refuses at once (a closed port on another host) refuses
/// through ICMP, which the kernel rate-limits to one message a second per destination
/// (`net.ipv4.icmp_ratelimit`). The first lookup fails in milliseconds; one made within the next
/// second gets no ICMP and waits out glibc's timeout (5 s). Without this, every call after the first
/// would wait out the one-second bound and say `kSCStatusReachabilityUnknown`.
///
/// A failure is remembered for `lifetime` and forgotten by any other answer for the name.
/// ```swift
/// RecentLookupFailures.shared.heard(.success([]), for: "example.org")
/// RecentLookupFailures.shared.recentFailure(of: "example.org")   // true, for 30 s
/// ```
final class RecentLookupFailures: Sendable {
    static let shared = RecentLookupFailures()

    /// Long enough to span a resolver's timeout and a poller's period; short enough that a name
    /// whose resolver was mended is soon asked afresh (a lookup that answers forgets it at once).
    let lifetime: DispatchTimeInterval
    /// Bounds the memory of an app that asks about many names.
    let capacity: Int
    private let failures = Mutex<[String: DispatchTime]>([:])

    init(lifetime: DispatchTimeInterval = .seconds(30), capacity: Int = 64) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    /// An answer for `host`: flags 0 (not reachable: the lookup failed, or found no route) is
    /// remembered; any other answer forgets the name.
    func heard(_ answer: Result<SCNetworkReachabilityFlags, SCStatusCode>, for host: String) {
        failures.withLock { failures in
            guard case .success(let flags) = answer, flags.isEmpty else {
                failures[host] = nil
                return
            }
            failures[host] = .now() + lifetime
            if failures.count > capacity, let oldest = failures.min(by: { $0.value < $1.value })?.key {
                failures[oldest] = nil
            }
        }
    }

    /// Whether `host`'s last answer, within `lifetime`, was flags 0.
    func recentFailure(of host: String) -> Bool {
        failures.withLock { failures in
            guard let until = failures[host] else { return false }
            if until < .now() {
                failures[host] = nil
                return false
            }
            return true
        }
    }
}
