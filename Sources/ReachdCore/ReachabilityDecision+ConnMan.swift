/// ConnMan as a source (contract 5, §5.3; docs/mapping.md, "ConnMan"): its word checked against
/// the kernel's paths by the rows of contract 2's table, as NetworkManager's is. The rows keep
/// their numbers, so `Details`' `override-rule` reads the same whichever manager was overridden.
///
/// | row | when | published |
/// |---|---|---|
/// | R2 | `OfflineMode` | Not Reachable (`disabled`), never overridden |
/// | R4 ⏱ | ConnMan `ready`/`online`, both families rejected or unrouted | Not Reachable (`blocked` or `no-route`), `netlink-override` |
/// | R5 ⏱ | ConnMan `ready`/`online`, the routed families' links have no carrier | Not Reachable (`no-link`), `netlink-override` |
/// | R6 | ConnMan `ready`/`online`, a usable kernel path | the path, with the medium of ConnMan's service on its link; `online` gives Connectivity `full`; metered when that service (or a VPN's underlay) is `cellular` or `Roaming` |
/// | R7 | ConnMan `ready`/`online` otherwise (the kernel a few milliseconds behind) | ConnMan's default service |
/// | R8 ⏱ | not connected; a usable path over a link no ConnMan service has | the kernel's path (`netlink-override`) |
/// | R10 | a service in `association` or `configuration` | Not Reachable (`connecting`) |
/// | R11 | not connected; the path is over a ConnMan service's link | Not Reachable (`no-route`) |
/// | R13 | anything else, and the IPv4 link-local fallback | Not Reachable (`no-route`; `no-link` when the path's link has no carrier) |
///
/// ```swift
/// let decision = ReachabilityDecision(.init(networkManager: nil, ipv4: pathOverEth0, connman: ConnManSnapshot(
///     state: "online", services: [ConnManService(path: "/net/connman/service/e", type: "ethernet", state: "online", interface: "eth0")])))
/// decision.rule                    // .r6
/// decision.published.connectivity  // .full
/// ```
extension ReachabilityDecision {
    static func evaluate(connman: ConnManSnapshot, _ facts: Facts, timedRows: Bool) -> ReachabilityDecision {
        let input = facts.input
        // --no-override: ConnMan's word as it is; the kernel's path still names the interface.
        let timedRows = timedRows && input.overrides
        // ConnMan's IPv4LL fallback leaves `default dev IFACE scope link` and a 169.254/16 source:
        // a path to the link only, never to the Internet. The kernel's source address says so,
        // or ConnMan's IPv4 of the path's service does.
        let linkLocal = input.ipv4.isLinkLocalOnly || (input.ipv4.isUsable
            && connman.service(interface: input.ipv4.route?.outgoingInterface ?? "")?.hasIPv4LinkLocalOnly == true)
        let ipv4 = linkLocal ? input.ipv4.withVerdict(.noSource) : input.ipv4
        let ipv4Path = ipv4.withMedium(of: connman)
        let ipv6Path = input.ipv6.withMedium(of: connman)
        var kernel = PublishedReachability(kernelPath4: ipv4Path, kernelPath6: ipv6Path, hasEligibleLink: input.hasEligibleLink)
        kernel.backend = .connman
        let kernelOK = ipv4Path.isUsable || ipv6Path.isUsable
        let pathInterface = (ipv4Path.isUsable ? ipv4Path : ipv6Path).route?.outgoingInterface ?? ""

        func notReachable(_ reason: UnsatisfiedReason, source: ReachabilitySource = .connman) -> PublishedReachability {
            PublishedReachability(
                status: .notReachable, flags: [], interfaceType: .none, interface: "",
                metered: connman.defaultService?.isMetered ?? false,
                connectivity: connman.isConnected ? (connman.isOnline ? .full : .unknown) : .none,
                backend: .connman, source: source, unsatisfiedReason: reason)
        }

        // R2: flight mode is the user's intent.
        if connman.offlineMode { return ReachabilityDecision(notReachable(.disabled), .r2) }

        if connman.isConnected {
            // IPv4LL: ConnMan says ready, and the link is all there is.
            if linkLocal, !ipv6Path.isUsable {
                return ReachabilityDecision(notReachable(.noRoute), .r13)
            }
            let verdicts = [ipv4Path.verdict, ipv6Path.verdict]
            // R4: a kill switch, or no route at all, while ConnMan says connected.
            if timedRows, verdicts.allSatisfy({ $0 == .blocked || $0 == .noRoute }) {
                return ReachabilityDecision(notReachable(verdicts.contains(.blocked) ? .blocked : .noRoute,
                                                         source: .netlinkOverride), .r4)
            }
            // R5: the carrier is gone before ConnMan noticed.
            if timedRows, verdicts.contains(.linkDown), verdicts.allSatisfy({ $0 == .linkDown || $0 == .noRoute }) {
                return ReachabilityDecision(notReachable(.noLink, source: .netlinkOverride), .r5)
            }
            // R6: ConnMan's reachability over the path the kernel really takes.
            if kernelOK {
                var value = kernel
                value.source = .connman
                value.connectivity = connman.isOnline ? .full : .unknown
                // A tunnel costs what its underlay costs.
                let pathService = connman.service(interface: pathInterface)
                let underlay = pathService?.medium == .tunnel ? connman.underlyingService : nil
                value.metered = (pathService?.isMetered ?? false) || (underlay?.isMetered ?? false) || value.flags.contains(.isWWAN)
                return ReachabilityDecision(value, .r6)
            }
            // R7: ConnMan may be a few milliseconds ahead of the kernel.
            return ReachabilityDecision(connmanWord(connman), .r7)
        }

        let uncontrolledPath = kernelOK && connman.service(interface: pathInterface) == nil
        // R8: a path over a link ConnMan does not manage does not depend on what it says.
        if timedRows, uncontrolledPath {
            var value = kernel
            value.source = .netlinkOverride
            return ReachabilityDecision(value, .r8)
        }
        // R10: ConnMan is bringing a service up.
        if connman.connectingService != nil { return ReachabilityDecision(notReachable(.connecting), .r10) }
        // R11: ConnMan's own link, which it says is not ready.
        if kernelOK, !uncontrolledPath { return ReachabilityDecision(notReachable(.noRoute), .r11) }
        // R13: idle, offline, or a service in failure (its Error in Details).
        let linkDown = ipv4Path.verdict == .linkDown || ipv6Path.verdict == .linkDown || !input.hasEligibleLink
        return ReachabilityDecision(notReachable(linkDown ? .noLink : .noRoute), .r13)
    }

    /// R7: ConnMan's default service as it describes itself, before the kernel has its route.
    private static func connmanWord(_ connman: ConnManSnapshot) -> PublishedReachability {
        let service = connman.defaultService
        let medium = service?.medium ?? .other
        var flags: ReachabilityFlags = .reachable
        if medium == .wwan { flags.insert(.isWWAN) }
        if medium == .tunnel { flags.insert(.transientConnection) }
        return PublishedReachability(
            status: NetworkReachabilityStatus(flags: flags), flags: flags, interfaceType: InterfaceType(medium),
            interface: service?.interface ?? "", metered: service?.isMetered ?? false,
            connectivity: connman.isOnline ? .full : .unknown, backend: .connman, source: .connman)
    }
}

extension KernelPath {
    /// A usable IPv4 path whose source address is link-local (169.254/16): the IPv4LL fallback.
    var isLinkLocalOnly: Bool { isUsable && source?.hasPrefix("169.254.") == true }

    func withVerdict(_ verdict: Verdict) -> KernelPath {
        var path = self
        path.verdict = verdict
        return path
    }

    /// The path with the medium of ConnMan's service on its link (its `Type` ahead of the kernel
    /// classifier's guess: a modem behind a USB Ethernet function is `cellular` to ConnMan).
    func withMedium(of connman: ConnManSnapshot) -> KernelPath {
        guard var route, let medium = connman.service(interface: route.outgoingInterface)?.medium else { return self }
        var path = self
        route.medium = medium
        path.route = route
        return path
    }
}

extension PathFacts {
    /// `AvailableInterfaces` with ConnMan's media, and a VPN path's underlay from ConnMan's order
    /// (the first connected service after the VPN) when the kernel could not name one.
    public func withMedia(of connman: ConnManSnapshot, published: InterfaceType) -> PathFacts {
        var facts = self
        facts.availableInterfaces = availableInterfaces.map { interface in
            guard let medium = connman.service(interface: interface.name)?.medium else { return interface }
            var interface = interface
            interface.type = InterfaceType(medium)
            return interface
        }
        if published == .vpn, let underlay = connman.underlyingService?.medium,
           facts.underlyingInterfaceType == nil || facts.underlyingInterfaceType == .other {
            facts.underlyingInterfaceType = InterfaceType(underlay)
        }
        return facts
    }
}
