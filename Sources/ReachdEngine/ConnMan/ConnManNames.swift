import ReachdDBus

/// ConnMan's names on the system bus, spelled once (ConnMan 1.41's `doc/manager-api.txt`,
/// `doc/service-api.txt`).
enum ConnManNames {
    static let bus: BusName = "net.connman"
    static let managerPath: ObjectPath = "/"
    static let managerInterface: InterfaceName = "net.connman.Manager"
    static let serviceInterface: InterfaceName = "net.connman.Service"
}
