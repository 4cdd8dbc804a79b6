/// The reachability of one host, a name or a literal, from the kernel's route to each of its addresses.
///
/// A name is reachable if any of its addresses is; the first reachable one in resolver order is the one
/// reported, because it is the one a client connecting in that order would use. "Reachable" here
/// means the flags contain `Reachable`, so a portal-bound address (Reachable, ConnectionRequired,
/// InterventionRequired: status NotReachable) still wins over an address with no route at all.
/// A name that does not resolve (no addresses) is not reachable: flags 0.
///
/// ```swift
/// let host = HostReachability(addressRoutes: [nil, wifiRoute], portal: false)
/// host.chosenIndex   // 1: the first address has no route
/// host.report        // flags Reachable, interface "wlan0", interfaceType .wifi
/// ```
public struct HostReachability: Sendable, Hashable {
    /// The route lookup of each address, in resolver order; `nil` where there is no route.
    public var addressRoutes: [RouteLookupResult?]
    /// NetworkManager reports a captive portal (only routes through the default route are affected).
    public var portal: Bool

    public init(addressRoutes: [RouteLookupResult?], portal: Bool) {
        self.addressRoutes = addressRoutes
        self.portal = portal
    }

    /// The flags of each address, in resolver order.
    public var addressFlags: [ReachabilityFlags] {
        addressRoutes.map { ReachabilityFlags(hostRoute: $0, portal: portal) }
    }

    /// The index of the address reported: the first whose flags contain `Reachable`; `nil` when none does.
    public var chosenIndex: Int? {
        addressFlags.firstIndex { $0.contains(.reachable) }
    }

    /// The host's flags: the chosen address's, or 0.
    public var flags: ReachabilityFlags {
        report.flags
    }

    /// What the monitor publishes: the chosen address's flags, status, interface and medium;
    /// `HostReport.notReachable` when no address is reachable.
    public var report: HostReport {
        guard let index = chosenIndex, let route = addressRoutes[index] else {
            return .notReachable
        }
        return HostReport(flags: ReachabilityFlags(hostRoute: route, portal: portal),
                          interface: route.outgoingInterface, interfaceType: InterfaceType(route.medium))
    }
}
