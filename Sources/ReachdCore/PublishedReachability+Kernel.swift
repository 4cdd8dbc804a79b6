/// The netlink backend's mapping (docs/mapping.md, "Kernel backend"), used when NetworkManager is
/// not on the bus.
///
/// ```swift
/// let v4 = RouteLookupResult(type: .unicast, hasGateway: true, outgoingInterface: "wwan0",
///                            medium: .wwan, linkIsUp: true, isDefaultRoute: true)
/// let published = PublishedReachability(kernelDefaultRoute: v4, ipv6DefaultRoute: nil)
/// published.flags           // Reachable|IsWWAN
/// published.interfaceType   // .wwan
/// published.metered         // true
/// ```
extension PublishedReachability {
    /// The published values for the kernel's IPv4 and IPv6 default routes (`nil`: no default route).
    ///
    /// The default route's flags follow the host-route rules (`ReachabilityFlags(hostRoute:portal:)`),
    /// so the two kernel views agree: a default route without a gateway (`default dev ppp0`) is `IsDirect`,
    /// as NetworkManager's "primary route with no gateway" is.
    ///
    /// Decisions where the design is silent:
    /// - IPv4 is used when it is reachable, else IPv6 (reachable or not): most networks still reach
    ///   the Internet over IPv4 first, and a working IPv6-only network must still count.
    /// - Only a unicast route counts as a default route. Asking the kernel for 0.0.0.0 answers
    ///   "local 0.0.0.0 dev lo", and an `unreachable default` route is common on IPv6; neither is a path out.
    /// - No portal bits: without NetworkManager nothing checks for one; Connectivity is `unknown`.
    /// - Metered is true exactly on `IsWWAN`; InterfaceType comes from the medium (tunnel → vpn,
    ///   loopback → other) and is `none`, with Interface `""`, when not reachable.
    public init(kernelDefaultRoute ipv4: RouteLookupResult?, ipv6DefaultRoute ipv6: RouteLookupResult?) {
        func defaultRouteFlags(_ route: RouteLookupResult?) -> ReachabilityFlags {
            guard let route, route.type == .unicast else { return [] }
            return ReachabilityFlags(hostRoute: route, portal: false)
        }
        let ipv4Flags = defaultRouteFlags(ipv4)
        let (route, flags) = ipv4Flags.contains(.reachable) ? (ipv4, ipv4Flags) : (ipv6, defaultRouteFlags(ipv6))
        let path = flags.contains(.reachable) ? route : nil

        self.init(
            status: NetworkReachabilityStatus(flags: flags),
            flags: flags,
            interfaceType: path.map { InterfaceType($0.medium) } ?? .none,
            interface: path?.outgoingInterface ?? "",
            metered: flags.contains(.isWWAN),
            connectivity: .unknown,
            backend: .netlink
        )
    }
}
