import ReachdDBus

/// NetworkManager's names on the system bus, spelled once.
enum NetworkManagerNames {
    static let bus: BusName = "org.freedesktop.NetworkManager"
    static let managerPath: ObjectPath = "/org/freedesktop/NetworkManager"
    static let managerInterface: InterfaceName = "org.freedesktop.NetworkManager"
    static let activeConnectionInterface: InterfaceName = "org.freedesktop.NetworkManager.Connection.Active"
    static let deviceInterface: InterfaceName = "org.freedesktop.NetworkManager.Device"
    static let ip4ConfigInterface: InterfaceName = "org.freedesktop.NetworkManager.IP4Config"
    static let wirelessInterface: InterfaceName = "org.freedesktop.NetworkManager.Device.Wireless"
    static let accessPointInterface: InterfaceName = "org.freedesktop.NetworkManager.AccessPoint"
}
