/// The verdict of reachd's own connectivity check (contract 3, §2.2), run where NetworkManager's
/// check is off or NetworkManager is absent, and how it enters the published value: where
/// NetworkManager's connectivity enters, with the same mapping (a portal is
/// Reachable|ConnectionRequired|InterventionRequired, Status 0, as contract 1 maps NetworkManager's).
///
/// | verdict | when | published |
/// |---|---|---|
/// | full | `X-NetworkManager-Status: online`, the body starts with `response`, or 204 when `response` is empty | Connectivity full, Level online |
/// | portal | a 3xx, a 511, or a 2xx with another body | Connectivity portal, the portal flags, UnsatisfiedReason portal, CaptivePortalURL |
/// | limited | no connection, a timeout, no DNS answer, any other status | Connectivity limited; the path stays as it is (NetworkManager's LIMITED is CONNECTED_SITE, Reachable) |
///
/// ```swift
/// let result = ConnectivityCheckResult(verdict: .portal, uri: "http://check.example/", httpStatus: 302,
///                                      portalURL: "http://login.example/")
/// reachable.checked(by: result).flags   // Reachable|ConnectionRequired|InterventionRequired
/// ```
public struct ConnectivityCheckResult: Sendable, Hashable {
    public enum Verdict: String, Sendable, Hashable, CaseIterable {
        case full, portal, limited

        /// The better of two families' verdicts, as NetworkManager ranks them: full, then portal
        /// (something the user can act on), then limited.
        public func better(_ other: Verdict) -> Verdict {
            let rank: [Verdict] = [.limited, .portal, .full]
            return rank.firstIndex(of: self)! >= rank.firstIndex(of: other)! ? self : other
        }
    }

    public var verdict: Verdict
    /// The URI probed.
    public var uri: String
    /// The HTTP status of the answer that decided, nil when there was none.
    public var httpStatus: UInt32?
    /// Behind a portal: the redirect's `Location`, else the probe URI; `""` otherwise.
    public var portalURL: String
    /// When the check ended (CLOCK_MONOTONIC, µs).
    public var finishedMicroseconds: UInt64

    public init(verdict: Verdict, uri: String, httpStatus: UInt32? = nil, portalURL: String = "",
                finishedMicroseconds: UInt64 = 0) {
        self.verdict = verdict
        self.uri = uri
        self.httpStatus = httpStatus
        self.portalURL = verdict == .portal ? (portalURL.isEmpty ? uri : portalURL) : ""
        self.finishedMicroseconds = finishedMicroseconds
    }
}

extension PublishedReachability {
    /// This value with reachd's own check applied: only to a value with a path (the check never
    /// runs without one, and a verdict from before the path went says nothing about no path).
    public func checked(by result: ConnectivityCheckResult) -> PublishedReachability {
        guard status != .unknown, flags.contains(.reachable) else { return self }
        var value = self
        value.path.connectivityChecked = true
        value.details.checkSource = "reachd"
        value.details.checkURI = result.uri
        value.details.checkHTTPStatus = result.httpStatus
        value.details.checkMicroseconds = result.finishedMicroseconds
        switch result.verdict {
        case .full:
            value.connectivity = .full
        case .limited:
            value.connectivity = .limited
        case .portal:
            value.connectivity = .portal
            value.flags.formUnion([.connectionRequired, .interventionRequired])
            value.status = NetworkReachabilityStatus(flags: value.flags)
            value.unsatisfiedReason = value.status.isReachable ? .none : .portal
            value.captivePortalURL = result.portalURL
        }
        return value
    }
}
