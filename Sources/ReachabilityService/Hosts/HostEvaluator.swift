import ReachabilityCore

/// Answers "can I reach this host, and over what?" from the kernel's routes:
/// each address a host has (a literal, or what its name resolves to) gets a
/// route lookup, and the first reachable address in resolver order decides.
struct HostEvaluator: Sendable {
    let routes: RouteLookup
    let resolver: Resolver

    /// What one evaluation round looks up once for all its hosts: the
    /// default routes' interfaces, and each interface's facts.
    struct Round: Sendable {
        let defaultInterfaces: Set<String>
        let links: LinkSnapshots
    }

    func startRound() -> Round {
        let links = LinkSnapshots()
        let defaults = [routes.defaultRoute(.v4, links: links), routes.defaultRoute(.v6, links: links)]
        return Round(defaultInterfaces: Set(defaults.compactMap { $0?.outgoingInterface }), links: links)
    }

    func report(for host: HostSpecification, portal: Bool, round: Round) async -> HostReport {
        let addresses: [IPAddress]
        switch host {
        case .address(let address):
            addresses = [address]
        case .name(let name):
            // A name that does not resolve (or not in time) is not reachable.
            addresses = await resolver.resolve(name) ?? []
        }
        let lookups = addresses.map { address -> RouteLookupResult? in
            guard var route = routes.route(to: address, links: round.links) else { return nil }
            route.isDefaultRoute = route.hasGateway && round.defaultInterfaces.contains(route.outgoingInterface)
            return route
        }
        return HostReachability(addressRoutes: lookups, portal: portal).report
    }
}
