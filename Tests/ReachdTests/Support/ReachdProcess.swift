import ReachdTestSupport

extension ReachdProcess {
    /// What reachd publishes from the kernel in `.privateWithDefaultRoute`
    /// when NetworkManager is not there (docs/mapping.md, netlink backend: a
    /// unicast default route via a gateway over a veth that is up and running).
    static let kernelView = Published(
        status: 2, flags: 0x2, reachable: true, reachableViaWWAN: false, reachableViaWiFi: true,
        statusString: "Reachable via WiFi", interfaceType: "ethernet", interface: "rv0", metered: false,
        connectivity: "unknown", backend: "netlink")
}
