/// The kernel's answer to one route lookup (`RTM_GETROUTE`), with the outgoing link's state and
/// medium filled in. "No route" is `nil` where a `RouteLookupResult?` is taken.
///
/// ```swift
/// let route = RouteLookupResult(type: .unicast, hasGateway: true, outgoingInterface: "wlan0",
///                               medium: .wifi, linkIsUp: true, isDefaultRoute: true)
/// ReachabilityFlags(hostRoute: route, portal: false)   // Reachable
/// ```
public struct RouteLookupResult: Sendable, Hashable {
    /// `rtm_type`.
    public var type: RouteType
    /// The route has an `RTA_GATEWAY`; without one the destination is on the link (`IsDirect`).
    public var hasGateway: Bool
    /// The name of the `RTA_OIF` link, `""` when none.
    public var outgoingInterface: String
    /// The outgoing link's medium (`LinkMedium(facts)`).
    public var medium: LinkMedium
    /// The outgoing link has both `IFF_UP` and `IFF_RUNNING`: configured up and with carrier.
    public var linkIsUp: Bool
    /// The matching route is a default route (prefix length 0), which is where a captive portal intercepts.
    public var isDefaultRoute: Bool

    public init(type: RouteType, hasGateway: Bool, outgoingInterface: String, medium: LinkMedium,
                linkIsUp: Bool, isDefaultRoute: Bool) {
        self.type = type
        self.hasGateway = hasGateway
        self.outgoingInterface = outgoingInterface
        self.medium = medium
        self.linkIsUp = linkIsUp
        self.isDefaultRoute = isDefaultRoute
    }
}
