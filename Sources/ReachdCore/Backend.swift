/// Which source the published values come from: the D-Bus `Backend` property (`s`, the raw value).
///
/// ```swift
/// Backend.networkmanager.rawValue   // "networkmanager"
/// ```
public enum Backend: String, Sendable, CaseIterable {
    /// NetworkManager on the system bus: the preferred source.
    case networkmanager
    /// The kernel's routing tables over rtnetlink, used when NetworkManager is not on the bus.
    case netlink
    /// The kernel's path with what systemd-networkd adds (medium, `connecting`, links' online
    /// states), used when networkd is on the bus with an `OnlineState` and NetworkManager is not.
    case systemdNetworkd = "systemd-networkd"
    /// ConnMan's word checked against the kernel's path (contract 5, §5), used when `net.connman`
    /// is on the bus and NetworkManager is not.
    case connman
}
