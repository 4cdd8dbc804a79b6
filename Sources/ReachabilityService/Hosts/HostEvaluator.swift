import ReachabilityCore

/// Answers "can I reach this host, and over what?" from the kernel's routes:
/// each address a host has (a literal, or what its name resolves to) gets a
/// route lookup, and the first reachable address in resolver order decides.
struct HostEvaluator: Sendable {
    let routes: RouteLookup
    let resolver: Resolver

    /// The default routes, looked up once per evaluation round.
    struct Defaults: Sendable {
        let interfaces: Set<String>
    }

    func defaults() -> Defaults {
        Defaults(interfaces: Set([routes.defaultRoute(.v4), routes.defaultRoute(.v6)].compactMap { $0?.outgoingInterface }))
    }

    func report(for host: HostSpecification, portal: Bool, defaults: Defaults) async -> HostReport {
        let addresses: [IPAddress]
        switch host {
        case .address(let address):
            addresses = [address]
        case .name(let name):
            // A name that does not resolve (or not in time) is not reachable.
            addresses = await resolver.resolve(name) ?? []
        }
        let lookups = addresses.map { address -> RouteLookupResult? in
            guard var route = routes.route(to: address) else { return nil }
            route.isDefaultRoute = route.hasGateway && defaults.interfaces.contains(route.outgoingInterface)
            return route
        }
        return HostReachability(addressRoutes: lookups, portal: portal).report
    }
}
