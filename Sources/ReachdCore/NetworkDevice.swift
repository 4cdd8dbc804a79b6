/// One NetworkManager device of an active connection (its `DeviceType`, `Interface`, `IpInterface`).
///
/// ```swift
/// let modem = NetworkDevice(type: .modem, interface: "cdc-wdm0", ipInterface: "wwan0")
/// ```
public struct NetworkDevice: Sendable, Hashable {
    public var type: NMDeviceType
    /// The device's `Interface`: for a modem the control port, for Bluetooth the address.
    public var interface: String
    /// The device's `IpInterface`: the kernel interface that carries IP, `""` when not yet known.
    public var ipInterface: String

    public init(type: NMDeviceType, interface: String, ipInterface: String = "") {
        self.type = type
        self.interface = interface
        self.ipInterface = ipInterface
    }

    /// The name reachd publishes as `Interface`: the IP interface when NetworkManager knows it,
    /// because that is the name `ip` and the routing table use.
    public var publishedInterface: String {
        ipInterface.isEmpty ? interface : ipInterface
    }
}
