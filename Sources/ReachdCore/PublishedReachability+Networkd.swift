/// systemd-networkd as a source (contract 3, §3.2; docs/mapping.md, "systemd-networkd"): the
/// kernel's path decides, networkd adds what the kernel cannot say.
///
/// ```swift
/// let networkd = NetworkdSnapshot(onlineState: "online", links: [
///     NetworkdLink(index: 3, name: "wlan0", type: "wlan", onlineState: "online", requiredForOnline: true)])
/// let value = PublishedReachability(kernelPath4: pathOverWlan0, kernelPath6: .none, networkd: networkd)
/// value.interfaceType   // .wifi (networkd's Type, ahead of the kernel classifier's guess)
/// value.backendName     // "systemd-networkd"
/// ```
extension PublishedReachability {
    /// The published values for the kernel's paths, with networkd's word:
    ///
    /// | networkd says | published |
    /// |---|---|
    /// | the path's link has `Type` `wlan` / `wwan` | the path's medium is Wi-Fi / WWAN (flags, InterfaceType, Metered) |
    /// | no path, a `RequiredForOnline` link with carrier `configuring` | `UnsatisfiedReason` `connecting` (for `no-route` or `no-link`) |
    /// | `OnlineState` `offline`, the path over a link it does not manage | the kernel's path, `Source` `netlink-override` |
    /// | anything else | the kernel's path, `Source` `netlink` |
    ///
    /// networkd never lowers the kernel's answer: its `OnlineState` is policy (which links are
    /// required), not a view of the path, as GLib's networkd monitor also reads it.
    public init(kernelPath4 ipv4: KernelPath, kernelPath6 ipv6: KernelPath, networkd: NetworkdSnapshot,
                hasEligibleLink: Bool = true) {
        func withMedium(_ path: KernelPath) -> KernelPath {
            guard var route = path.route, let medium = networkd.link(named: route.outgoingInterface)?.medium else {
                return path
            }
            var path = path
            route.medium = medium
            path.route = route
            return path
        }
        self.init(kernelPath4: withMedium(ipv4), kernelPath6: withMedium(ipv6), hasEligibleLink: hasEligibleLink)
        backend = .systemdNetworkd
        if reachable {
            let managed = networkd.link(named: interface)?.isManaged ?? false
            if networkd.onlineState == "offline", !managed { source = .netlinkOverride }
        } else if unsatisfiedReason == .noRoute || unsatisfiedReason == .noLink,
                  networkd.links.contains(where: { $0.requiredForOnline && $0.administrativeState == "configuring" && $0.hasCarrier }) {
            unsatisfiedReason = .connecting
        }
    }
}

extension PathFacts {
    /// `AvailableInterfaces` with networkd's media (`wlan`, `wwan`) ahead of the kernel
    /// classifier's, as the published path has them.
    public func withMedia(of networkd: NetworkdSnapshot) -> PathFacts {
        var facts = self
        facts.availableInterfaces = availableInterfaces.map { interface in
            guard let medium = networkd.link(named: interface.name)?.medium else { return interface }
            var interface = interface
            interface.type = InterfaceType(medium)
            return interface
        }
        return facts
    }
}
