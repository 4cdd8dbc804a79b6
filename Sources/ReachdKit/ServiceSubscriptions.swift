internal import ReachdDBus
internal import ReachdContract

/// What a watcher subscribes to, in the contract's names (`ReachdContract`).
enum ServiceSubscriptions {
    static let busName = ReachdContract.busName
    static let interface = ReachdContract.interface
    static let monitorInterface = ReachdContract.monitorInterface
    static let path = ReachdContract.objectPath
    static let monitorsPath = ReachdContract.monitorsPath
    /// The bus's own object, where `NameOwnerChanged` and `StartServiceByName` live.
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
                MatchRule(sender: busName, interface: interface, member: ReachdContract.reachabilityChanged, path: path),
                MatchRule(sender: busName, interface: .properties, member: "PropertiesChanged", path: path,
                          arguments: [0: interface.rawValue]),
            ]
        case .domain, .address:
            // The monitor's path is known only once the service has made it, so the rules cover
            // every monitor; signals of other monitors (of other clients) are dropped locally.
            [
                ownerChanges,
                MatchRule(sender: busName, interface: monitorInterface, member: ReachdContract.reachabilityChanged,
                          pathNamespace: monitorsPath),
                MatchRule(sender: busName, interface: .properties, member: "PropertiesChanged",
                          pathNamespace: monitorsPath, arguments: [0: monitorInterface.rawValue]),
            ]
        }
    }
}
