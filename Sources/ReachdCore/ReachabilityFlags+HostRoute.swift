/// Flags for one address from the kernel's route to it (docs/mapping.md, "Host monitors and CheckHost").
///
/// | route | flags |
/// |---|---|
/// | none, or the link not up and running | 0 |
/// | unreachable, prohibit, blackhole, throw (and unspec, nat, xresolve, unknown types) | 0 |
/// | local | Reachable, IsLocalAddress, IsDirect |
/// | unicast, broadcast, multicast, anycast with a gateway | Reachable |
/// | unicast, broadcast, multicast, anycast without a gateway | Reachable, IsDirect |
///
/// plus the medium bits of the outgoing link (`IsWWAN`, `TransientConnection`), and, when the route is
/// the default route and NetworkManager reports a captive portal, `ConnectionRequired` and
/// `InterventionRequired`.
///
/// ```swift
/// let route = RouteLookupResult(type: .unicast, hasGateway: false, outgoingInterface: "eth0",
///                               medium: .ethernet, linkIsUp: true, isDefaultRoute: false)
/// ReachabilityFlags(hostRoute: route, portal: true)   // Reachable|IsDirect: the LAN is behind no portal
/// ```
extension ReachabilityFlags {
    /// Decisions where the design is silent:
    /// - broadcast, multicast and anycast routes deliver packets like unicast ones, so they count as
    ///   reachable; they never carry a gateway, so they come out `IsDirect`.
    /// - unspec, nat, xresolve and types this version does not know are not usable paths: 0.
    /// - "Link not up" applies to every type, `local` included (local delivery runs over `lo`).
    /// - The portal bits are added only to a reachable result; 0 stays 0.
    public init(hostRoute route: RouteLookupResult?, portal: Bool) {
        guard let route, route.linkIsUp else {
            self = []
            return
        }
        var flags: ReachabilityFlags
        switch route.type {
        case .local:
            flags = [.reachable, .isLocalAddress, .isDirect]
        case .unicast, .broadcast, .multicast, .anycast:
            flags = route.hasGateway ? .reachable : [.reachable, .isDirect]
        default:
            self = []
            return
        }
        flags.formUnion(route.medium.flags)
        if portal && route.isDefaultRoute {
            flags.formUnion([.connectionRequired, .interventionRequired])
        }
        self = flags
    }
}
