import ReachdCore

/// Builds route lookups for the kernel tables: a unicast default route over ethernet unless told otherwise.
func route(
    _ type: RouteType = .unicast, gateway: Bool = true, via interface: String = "eth0",
    medium: LinkMedium = .ethernet, up: Bool = true, isDefault: Bool = true
) -> RouteLookupResult {
    RouteLookupResult(type: type, hasGateway: gateway, outgoingInterface: interface, medium: medium,
                      linkIsUp: up, isDefaultRoute: isDefault)
}
