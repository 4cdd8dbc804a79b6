/// An interface a path can use: Apple's `NWInterface`, as reachd lists the links that could
/// carry a path (up, with carrier; loopback never).
///
/// ```swift
/// for interface in monitor.currentPath.availableInterfaces where interface.type == .wiredEthernet {
///     print(interface.name, interface.index)   // eth0 2
/// }
/// ```
public struct NWInterface: Hashable, Sendable, CustomDebugStringConvertible {
    /// Apple's interface types. On Linux a VPN, a tunnel, Bluetooth or anything without a medium
    /// of its own is `.other`, as a `utun` interface is on Apple's systems.
    public enum InterfaceType: Hashable, Sendable {
        case other
        case wifi
        case cellular
        case wiredEthernet
        case loopback
    }

    /// The kernel's name: `eth0`, `wlan0`, `wwan0`.
    public let name: String
    public let type: InterfaceType
    /// The kernel's interface index (`if_nametoindex`), 0 when the link went away meanwhile.
    public let index: Int

    init(name: String, type: InterfaceType, index: Int) {
        self.name = name
        self.type = type
        self.index = index
    }

    public var debugDescription: String { name }
}
