import Glibc
import ReachdCore

/// Where the kernel would send a packet to the Internet, per address family,
/// asked as an application's packet is routed (every `ip rule` applies) and
/// without dumping the routing table: a few `RTM_GETROUTE` for probe addresses.
///
/// A probe stands for "any global destination", so it must not land in a route
/// of the machine's own: labs and virtual machines number their LANs from the
/// documentation prefixes too. Each probe of the list is asked with
/// `RTM_F_FIB_MATCH`, and the first whose best match is a default route (prefix
/// length 0, in whatever table the rules chose) is used; if none is, the first.
/// No packet is ever sent to a probe.
struct KernelPathFinder: Sendable {
    /// The probe addresses of each family, in the order they are tried.
    struct Probes: Sendable, Equatable {
        var ipv4: [IPAddress]
        var ipv6: [IPAddress]
        /// Families whose probe the administrator named: asked as it is, whatever it matches.
        var named: Set<IPAddress.Family> = []

        /// RFC 5737's three IPv4 documentation addresses, RFC 3849's and RFC 9637's IPv6 ones.
        static let standard = Probes(
            ipv4: ["192.0.2.1", "198.51.100.1", "203.0.113.1"].compactMap { IPAddress(strict: $0) },
            ipv6: ["2001:db8::1", "3fff::1"].compactMap { IPAddress(strict: $0) })

        func addresses(_ family: IPAddress.Family) -> [IPAddress] { family == .v4 ? ipv4 : ipv6 }
    }

    let routes: RouteLookup
    let probes: Probes
    let defaultRoutes: DefaultRouteSet

    /// The path of `family`. Throws only when the kernel did not answer.
    func path(_ family: IPAddress.Family, links: LinkSnapshots) throws(RouteLookupFailure) -> KernelPath {
        guard let chosen = try chooseProbe(family) else { return .none }
        let route: RouteMessage
        switch try routes.lookup(chosen) {
        case .noRoute: return .none
        case .rejected: return KernelPath(verdict: .blocked)
        case .route(let found): route = found
        }
        guard let link = links.link(index: route.outputInterface) else { return .none }
        let gateway = route.gateway.map { Self.text(of: $0, links: links) }
        // The medium of a link carrying the path: a veth or tap is the container's
        // ethernet, a bridge takes its hardware port's (docs/mapping.md, "Which links
        // can carry the path").
        let lookup = RouteLookupResult(
            type: route.type, hasGateway: route.hasGateway, outgoingInterface: link.name,
            medium: link.classification.medium, linkIsUp: link.isUpAndRunning, isDefaultRoute: true)
        func path(_ verdict: KernelPath.Verdict) -> KernelPath {
            KernelPath(verdict: verdict, route: lookup, table: route.table, gateway: gateway,
                       source: route.preferredSource?.description)
        }
        // local, broadcast, multicast: the probe is this machine's or its LAN's, not the Internet.
        guard route.type == .unicast else { return path(.noRoute) }
        // Loopback and sinks (dummy, ifb, nlmon) swallow what they are given.
        guard link.linkClass.isEligibleForPath else { return path(.blocked) }
        guard link.isUpAndRunning else { return path(.linkDown) }
        guard Self.isUsableSource(route.preferredSource) else { return path(.noSource) }
        if link.needsUnderlay, try !hasUnderlay(besides: route.outputInterface, links: links) { return path(.noUnderlay) }
        return path(.ok)
    }

    /// The probe that stands for the Internet: a named one; else the first whose best match is a
    /// default route; else the first matched by a route through a gateway (a
    /// default-free router's specific route); else the first with no route or a
    /// reject answer. A match straight onto a link without a gateway is the
    /// machine's own LAN (numbered from a documentation prefix), never the
    /// Internet: nil when every probe lands in one.
    private func chooseProbe(_ family: IPAddress.Family) throws(RouteLookupFailure) -> IPAddress? {
        if probes.named.contains(family) { return probes.addresses(family).first }
        var throughGateway: IPAddress?
        var unrouted: IPAddress?
        for probe in probes.addresses(family) {
            switch try routes.lookup(probe, fibMatch: true) {
            case .route(let match) where match.destinationLength == 0:
                return probe
            case .route(let match) where match.type == .unicast && !match.hasGateway:
                continue
            case .route:
                throughGateway = throughGateway ?? probe
            case .noRoute, .rejected:
                unrouted = unrouted ?? probe
            }
        }
        return throughGateway ?? unrouted
    }

    /// Some link that needs none itself, up and running, carries a default route.
    private func hasUnderlay(besides tunnel: UInt32, links: LinkSnapshots) throws(RouteLookupFailure) -> Bool {
        try defaultRoutes.outputInterfaces().contains { index in
            guard index != tunnel, let link = links.link(index: index) else { return false }
            return link.isUpAndRunning && !link.needsUnderlay && link.linkClass.isEligibleForPath
        }
    }

    /// A source the Internet can answer: not IPv6 link-local, not IPv4 0.0.0.0.
    private static func isUsableSource(_ source: IPAddress?) -> Bool {
        guard let source else { return false }
        switch source.family {
        case .v4: return source.bytes != [0, 0, 0, 0]
        case .v6: return !(source.bytes[0] == 0xfe && source.bytes[1] & 0xc0 == 0x80)
        }
    }

    /// A gateway as people write it: a link-local one with `%interface`.
    private static func text(of gateway: IPAddress, links: LinkSnapshots) -> String {
        guard let index = UInt32(gateway.zone), let link = links.link(index: index) else { return gateway.description }
        return IPAddress(family: gateway.family, bytes: gateway.bytes, zone: link.name).description
    }
}
