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
        let resolved: Resolved
        switch host {
        case .address(let address): resolved = Resolved(addresses: [address], couldNotResolve: false)
        case .name(let name): resolved = Resolved(await resolver.resolve(name, for: client))
        }
        return (try judge(resolved, portal: portal, round: round), resolved.couldNotResolve)
    }

    /// A host's addresses, as a judgement needs them.
    struct Resolved: Sendable {
        var addresses: [IPAddress]
        /// No answer from the resolver (not: "no such name").
        var couldNotResolve: Bool

        init(addresses: [IPAddress], couldNotResolve: Bool) {
            self.addresses = addresses
            self.couldNotResolve = couldNotResolve
        }

        init(_ answer: Resolver.Answer) {
            switch answer {
            case .addresses(let found): self.init(addresses: found, couldNotResolve: false)
            case .noAddress: self.init(addresses: [], couldNotResolve: false)
            case .couldNotResolve: self.init(addresses: [], couldNotResolve: true)
            }
        }
    }

    /// `CheckHost`'s addresses: a literal's own, a name's from the resolver, for `caller` and
    /// under its account's cap of waiting lookups. Done before the round is started, so a refused
    /// name costs the kernel nothing, and an answered one is judged on the routes of its answer's time.
    func addresses(of host: HostSpecification, client: String, caller: String) async throws(Resolver.Refusal) -> Resolved {
        switch host {
        case .address(let address): Resolved(addresses: [address], couldNotResolve: false)
        case .name(let name): Resolved(try await resolver.resolve(name, for: client, caller: caller))
        }
    }

    /// Judges `resolved` on the kernel's routes. Throws when the kernel did not answer a route
    /// lookup: nothing is known, and that must not be published as "not reachable". A name that
    /// cannot be resolved (the DNS says it does not exist, or gives no answer in time) is not
    /// reachable, as SCNetworkReachability has it.
    func judge(_ resolved: Resolved, portal: Bool, round: Round) throws(HostEvaluationFailure) -> HostReport {
        var lookups: [RouteLookupResult?] = []
        for address in resolved.addresses {
            let found: RouteLookupResult?
            do { found = try routes.route(to: address, links: round.links) } catch { throw .routeLookup(error) }
            guard var route = found else {
                lookups.append(nil)
                continue
            }
            route.isDefaultRoute = route.hasGateway && round.defaultInterfaces.contains(route.outgoingInterface)
            lookups.append(route)
        }
        return HostReachability(addressRoutes: lookups, portal: portal).report
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
