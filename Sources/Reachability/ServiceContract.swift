import DBus

/// The names of contract version 1 (dbus/io.reachd.Reachability1.xml), as the client uses them.
enum ServiceContract {
    static let busName: BusName = "io.reachd.Reachability1"
    static let path: ObjectPath = "/io/reachd/Reachability1"
    static let interface: InterfaceName = "io.reachd.Reachability1"
    static let monitorInterface: InterfaceName = "io.reachd.Reachability1.Monitor"
    /// Host monitors live below this path (`…/Monitors/N`).
    static let monitorsPath: ObjectPath = "/io/reachd/Reachability1/Monitors"
    static let busPath: ObjectPath = "/org/freedesktop/DBus"

    /// `NameOwnerChanged` for the service's name only.
    static let ownerChanges = MatchRule(
        sender: .bus, interface: .bus, member: "NameOwnerChanged", path: busPath,
        arguments: [0: busName.rawValue])

    /// What a watcher subscribes to, before it reads any state: the owner of the name, and every
    /// change announcement of the object it follows. Well-known senders are applied by the bus;
    /// the watcher also checks each signal's unique sender against the owner it knows.
    static func rules(for target: NetworkReachabilityManager.Target) -> [MatchRule] {
        switch target {
        case .defaultRoute:
            [
                ownerChanges,
                MatchRule(sender: busName, interface: interface, member: "ReachabilityChanged", path: path),
                MatchRule(sender: busName, interface: .properties, member: "PropertiesChanged", path: path,
                          arguments: [0: interface.rawValue]),
            ]
        case .domain, .address:
            // The monitor's path is known only once the service has made it, so the rules cover
            // every monitor; signals of other monitors (of other clients) are dropped locally.
            [
                ownerChanges,
                MatchRule(sender: busName, interface: monitorInterface, member: "ReachabilityChanged",
                          pathNamespace: monitorsPath),
                MatchRule(sender: busName, interface: .properties, member: "PropertiesChanged",
                          pathNamespace: monitorsPath, arguments: [0: monitorInterface.rawValue]),
            ]
        }
    }
}
