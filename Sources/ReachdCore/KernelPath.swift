/// The kernel's answer to "where would a packet to the Internet go?" for one address family:
/// the route a probe address takes, and whether it is a usable path.
///
/// ```swift
/// let path = KernelPath(verdict: .ok, route: RouteLookupResult(
///     type: .unicast, hasGateway: true, outgoingInterface: "wlan0", medium: .wifi,
///     linkIsUp: true, isDefaultRoute: true), table: 254, gateway: "192.0.2.1")
/// path.isUsable   // true
/// ```
public struct KernelPath: Sendable, Hashable {
    /// Why the path is or is not usable, in the words `UnsatisfiedReason` will use.
    public enum Verdict: String, Sendable, Hashable, CaseIterable {
        /// A unicast route over a link that is up, with a usable source address.
        case ok
        /// No route at all (`ENETUNREACH`).
        case noRoute = "no-route"
        /// A reject route or rule: unreachable, prohibit, blackhole, throw; or a path into a
        /// link that swallows packets (loopback, a sink).
        case blocked
        /// The route's link is down or has no carrier.
        case linkDown = "no-link"
        /// The route leaves through a tunnel, and no other link carries a default route under it.
        case noUnderlay = "no-underlay"
        /// No source address the Internet can answer (IPv6 link-local only, IPv4 0.0.0.0).
        case noSource = "no-source"
    }

    public var verdict: Verdict
    /// The route the probe took, when the kernel named one.
    public var route: RouteLookupResult?
    /// The routing table the rules chose (`RTA_TABLE`), 0 when unknown.
    public var table: UInt32
    /// The next hop as text (`192.0.2.1`, `fe80::1%eth0`), nil when the destination is on the link.
    public var gateway: String?
    /// The source address the kernel would use (`RTA_PREFSRC`) as text, nil when it named none.
    public var source: String?

    public init(verdict: Verdict, route: RouteLookupResult? = nil, table: UInt32 = 0, gateway: String? = nil,
                source: String? = nil) {
        self.verdict = verdict
        self.route = route
        self.table = table
        self.gateway = gateway
        self.source = source
    }

    public var isUsable: Bool { verdict == .ok }

    /// No route of this family at all.
    public static let none = KernelPath(verdict: .noRoute)
}

extension PublishedReachability {
    /// The published values for the kernel's paths of both families: IPv4 when usable, else IPv6,
    /// with the rules of `init(kernelDefaultRoute:ipv6DefaultRoute:)`.
    ///
    /// `UnsatisfiedReason` when neither is usable: `blocked` if either family is blocked (a kill
    /// switch), else IPv4's reason, unless IPv4 simply has no route and IPv6 says more; and
    /// `no-link` rather than `no-route` when no eligible link has carrier (`hasEligibleLink`
    /// false: an uplink set down takes its routes with it, and the reason is the link).
    public init(kernelPath4 ipv4: KernelPath, kernelPath6 ipv6: KernelPath, hasEligibleLink: Bool = true) {
        self.init(kernelDefaultRoute: ipv4.isUsable ? ipv4.route : nil,
                  ipv6DefaultRoute: ipv6.isUsable ? ipv6.route : nil)
        guard !status.isReachable else { return }
        let verdict: KernelPath.Verdict = if ipv4.verdict == .blocked || ipv6.verdict == .blocked {
            .blocked
        } else if ipv4.verdict == .noRoute {
            ipv6.verdict
        } else {
            ipv4.verdict
        }
        unsatisfiedReason = UnsatisfiedReason(verdict)
        if !hasEligibleLink, unsatisfiedReason == .noRoute { unsatisfiedReason = .noLink }
    }
}

extension UnsatisfiedReason {
    /// The reason a kernel path of this verdict gives.
    public init(_ verdict: KernelPath.Verdict) {
        self = switch verdict {
        case .ok: .none
        case .noRoute, .noSource: .noRoute
        case .blocked: .blocked
        case .linkDown: .noLink
        case .noUnderlay: .noUnderlay
        }
    }
}
