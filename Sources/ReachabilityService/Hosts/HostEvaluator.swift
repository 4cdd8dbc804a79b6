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

    /// Throws when the kernel did not answer: the round cannot be judged.
    func startRound() throws(RouteLookupFailure) -> Round {
        let links = LinkSnapshots()
        let defaults = [try routes.defaultRoute(.v4, links: links), try routes.defaultRoute(.v6, links: links)]
        return Round(defaultInterfaces: Set(defaults.compactMap { $0?.outgoingInterface }), links: links)
    }

    /// Throws when a route lookup got no answer from the kernel: the host's
    /// reachability is then not known, and must not be published as "not reachable".
    func report(for host: HostSpecification, portal: Bool, round: Round) async throws(RouteLookupFailure) -> HostReport {
        let addresses: [IPAddress]
        switch host {
        case .address(let address):
            addresses = [address]
        case .name(let name):
            // A name that does not resolve (or not in time) is not reachable.
            addresses = await resolver.resolve(name) ?? []
        }
        var lookups: [RouteLookupResult?] = []
        for address in addresses {
            guard var route = try routes.route(to: address, links: round.links) else {
                lookups.append(nil)
                continue
            }
            route.isDefaultRoute = route.hasGateway && round.defaultInterfaces.contains(route.outgoingInterface)
            lookups.append(route)
        }
        return HostReachability(addressRoutes: lookups, portal: portal).report
    }
}
