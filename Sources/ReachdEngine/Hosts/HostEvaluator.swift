import ReachdCore

/// Answers "can I reach this host, and over what?" from the kernel's routes:
/// each address a host has (a literal, or what its name resolves to) gets a
/// route lookup, and the first reachable address in resolver order decides.
struct HostEvaluator: Sendable {
    let routes: RouteLookup
    let paths: KernelPathFinder
    let resolver: Resolver

    /// What one evaluation round looks up once for all its hosts: the
    /// default routes' interfaces, and each interface's facts.
    struct Round: Sendable {
        let defaultInterfaces: Set<String>
        let links: LinkSnapshots
    }

    /// Throws when the kernel did not answer: the round cannot be judged.
    /// The interfaces of the kernel's Internet paths stand for "the default
    /// route", where a captive portal intercepts.
    func startRound() throws(HostEvaluationFailure) -> Round {
        let links = LinkSnapshots()
        do {
            let defaults = [try paths.path(.v4, links: links), try paths.path(.v6, links: links)]
            return Round(defaultInterfaces: Set(defaults.compactMap { $0.route?.outgoingInterface }), links: links)
        } catch {
            throw .routeLookup(error)
        }
    }

    /// Whether `host` is judged without waiting for a resolver thread: an
    /// address literal, or a name in `/etc/hosts`.
    func answersAtOnce(_ host: HostSpecification) -> Bool {
        switch host {
        case .address: true
        case .name(let name): resolver.isListedLocally(name)
        }
    }

    /// Throws when the kernel did not answer a route lookup: nothing is known,
    /// and that must not be published as "not reachable". A name that cannot
    /// be resolved (the DNS says it does not exist, or gives no answer in time)
    /// is not reachable, as SCNetworkReachability has it.
    func report(for host: HostSpecification, client: String, portal: Bool, round: Round) async throws(HostEvaluationFailure) -> HostReport {
        try await evaluate(host, client: client, portal: portal, round: round).report
    }

    /// The report, and whether its name could not be resolved for want of an answer (a
    /// timeout, a failing server): such a name is worth asking again soon.
    func evaluate(_ host: HostSpecification, client: String, portal: Bool, round: Round)
        async throws(HostEvaluationFailure) -> (report: HostReport, couldNotResolve: Bool) {
        let addresses: [IPAddress]
        var couldNotResolve = false
        switch host {
        case .address(let address):
            addresses = [address]
        case .name(let name):
            switch await resolver.resolve(name, for: client) {
            case .addresses(let found): addresses = found
            case .noAddress: addresses = []
            case .couldNotResolve:
                addresses = []
                couldNotResolve = true
            }
        }
        var lookups: [RouteLookupResult?] = []
        for address in addresses {
            let found: RouteLookupResult?
            do { found = try routes.route(to: address, links: round.links) } catch { throw .routeLookup(error) }
            guard var route = found else {
                lookups.append(nil)
                continue
            }
            route.isDefaultRoute = route.hasGateway && round.defaultInterfaces.contains(route.outgoingInterface)
            lookups.append(route)
        }
        return (HostReachability(addressRoutes: lookups, portal: portal).report, couldNotResolve)
    }
}

/// Why a host could not be judged: nothing is known, so nothing is published.
enum HostEvaluationFailure: Error, CustomStringConvertible {
    case routeLookup(RouteLookupFailure)

    var description: String {
        switch self {
        case .routeLookup(let failure): "\(failure)"
        }
    }
}
