import Glibc
import ReachdCore

/// The kernel's side of the path API: both families' Internet paths and what
/// NWPath tells an app besides (DNS, gateways, the links that could carry a
/// path), read together with one set of link facts per evaluation. No packet
/// is sent and the routing table is never dumped for it.
struct PathFactsReader: Sendable {
    let paths: KernelPathFinder
    let routes: RouteLookup
    let defaultRoutes: DefaultRouteSet
    /// The configured DNS servers (`nameserver` lines of /etc/resolv.conf).
    let nameservers: @Sendable () -> [IPAddress]

    init(paths: KernelPathFinder, routes: RouteLookup, defaultRoutes: DefaultRouteSet,
         nameservers: @escaping @Sendable () -> [IPAddress] = { ResolvConf.load().nameservers }) {
        self.paths = paths
        self.routes = routes
        self.defaultRoutes = defaultRoutes
        self.nameservers = nameservers
    }

    struct Reading: Sendable {
        let ipv4: KernelPath
        let ipv6: KernelPath
        /// Everything but `connectivityChecked`, which is NetworkManager's to say.
        let facts: PathFacts
        /// Some link that could carry a path (not loopback, not a sink) is up with carrier;
        /// without one, no route reads `no-link`.
        var hasEligibleLink = true
    }

    /// Throws when the kernel did not answer a lookup.
    func read() throws(RouteLookupFailure) -> Reading {
        let links = LinkSnapshots()
        let ipv4 = try paths.path(.v4, links: links)
        let ipv6 = try paths.path(.v6, links: links)
        let deciding = ipv4.isUsable ? ipv4 : ipv6
        let pathInterfaces = Set([ipv4, ipv6].filter(\.isUsable).compactMap { $0.route?.outgoingInterface })
        // Every link with a default route of its own has a path to the Internet, not only the
        // deciding one (issue 43: a second uplink was listed without it, so a filter that excluded
        // the first left nothing). The set is dumped once, then kept from route notifications.
        let withDefault = try defaultRoutes.outputInterfaces()

        var available: [PathFacts.AvailableInterface] = []
        var hasLink = false
        var hasEligibleLink = false
        var underlay: InterfaceType?
        for name in LinkInspector.allNames() {
            let index = if_nametoindex(name)
            guard index != 0, let link = links.link(index: index) else { continue }
            let carriesPath = pathInterfaces.contains(name)
            // A link with a default route of its own could carry the path (a veth is one only
            // then: a container's second network is an uplink, a host's docker veths are not).
            let ownDefault = withDefault.contains(index)
            let linkClass = link.linkClass(carriesPath: carriesPath || ownDefault)
            if linkClass.countsForLinkLevel && link.isUpAndRunning { hasLink = true }
            if linkClass.isEligibleForPath && link.isUpAndRunning { hasEligibleLink = true }
            // Available as NWPath means it: a link that could carry a path and is up with carrier.
            guard linkClass.isListedAsAvailable, link.isUpAndRunning else { continue }
            let hasInternetPath = carriesPath
                || ownDefault && link.isUpAndRunning && !link.needsUnderlay
            if hasInternetPath, !link.needsUnderlay, underlay == nil { underlay = link.classification.interfaceType }
            available.append(PathFacts.AvailableInterface(
                name: name, type: link.classification.interfaceType, hasInternetPath: hasInternetPath))
        }
        // The deciding path's link first, then links with an Internet path, then the rest.
        let first = deciding.isUsable ? deciding.route?.outgoingInterface : nil
        available = available.filter { $0.name == first }
            + available.filter { $0.name != first && $0.hasInternetPath }
            + available.filter { $0.name != first && !$0.hasInternetPath }

        let throughTunnel = deciding.isUsable && deciding.route?.medium == .tunnel
        let gateways = [deciding, deciding == ipv4 ? ipv6 : ipv4].filter(\.isUsable).compactMap(\.gateway)
        return Reading(ipv4: ipv4, ipv6: ipv6, facts: PathFacts(
            supportsIPv4: ipv4.isUsable, supportsIPv6: ipv6.isUsable,
            supportsDNS: try hasDNSPath(anyPath: ipv4.isUsable || ipv6.isUsable, links: links),
            hasLink: hasLink,
            underlyingInterfaceType: throughTunnel ? underlay : nil,
            gateways: gateways, availableInterfaces: available), hasEligibleLink: hasEligibleLink)
    }

    /// Some configured DNS server has a path. A resolver on this machine
    /// (systemd-resolved's stub, dnsmasq) has one whenever the Internet has:
    /// its own upstream servers are not known here.
    private func hasDNSPath(anyPath: Bool, links: LinkSnapshots) throws(RouteLookupFailure) -> Bool {
        for server in nameservers() {
            if server.isLoopback {
                if anyPath { return true }
                continue
            }
            guard case .route(let route) = try routes.lookup(server), route.type == .unicast,
                  let link = links.link(index: route.outputInterface), link.isUpAndRunning,
                  link.linkClass(carriesPath: true).isEligibleForPath else { continue }
            return true
        }
        return false
    }
}

/// The `nameserver` lines of /etc/resolv.conf, as the C library reads them.
struct ResolvConf: Sendable, Equatable {
    var nameservers: [IPAddress]

    init(text: String) {
        nameservers = text.split(whereSeparator: \.isNewline).compactMap { line in
            let fields = line.prefix { $0 != "#" && $0 != ";" }.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, fields[0] == "nameserver" else { return nil }
            return IPAddress(strict: String(fields[1]))
        }
    }

    static func load(path: String = "/etc/resolv.conf") -> ResolvConf {
        guard let file = fopen(path, "re") else { return ResolvConf(text: "") }
        defer { fclose(file) }
        var text = ""
        var buffer = [CChar](repeating: 0, count: 1024)
        while fgets(&buffer, Int32(buffer.count), file) != nil, text.utf8.count < 65536 {
            text += buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        }
        return ResolvConf(text: text)
    }
}

extension IPAddress {
    /// 127.0.0.0/8 or ::1.
    var isLoopback: Bool {
        family == .v4 ? bytes[0] == 127 : bytes == [UInt8](repeating: 0, count: 15) + [1]
    }
}
