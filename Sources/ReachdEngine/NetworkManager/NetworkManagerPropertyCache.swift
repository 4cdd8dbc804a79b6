import ReachdDBus
import ReachdCore

/// What we know of NetworkManager's objects: the manager, its devices and
/// active connections (the cross-check with the kernel asks whether
/// NetworkManager controls the kernel path's device, contract 2 §1.3), and
/// the primary and activating connections' IPv4 configs.
///
/// A pure value: the backend feeds it `GetAll` answers and signals in
/// arrival order, asks which objects it still needs, and reads a
/// `NetworkManagerSnapshot` off it. Keeping only referenced objects keeps the
/// number of calls and match rules small (the system bus allows 128
/// outstanding calls per connection).
struct NetworkManagerPropertyCache: Sendable, Equatable {
    /// Properties by object path; an empty dictionary is an object we asked
    /// for that did not answer (it vanished), so we don't ask again.
    private(set) var objects: [ObjectPath: [String: DBusValue]] = [:]

    /// Stores a `GetAll` answer (variants unwrapped) of `interface`. A Wi-Fi device's
    /// `Device.Wireless` properties join its `Device` ones (NetworkManager's `PropertiesChanged`
    /// mixes them the same way); a device without that interface has no access point.
    mutating func store(_ properties: [String: DBusValue], at path: ObjectPath,
                        interface: InterfaceName? = nil) {
        guard interface == NetworkManagerNames.wirelessInterface else {
            objects[path] = properties
            return
        }
        guard objects[path]?.isEmpty == false else { return }
        objects[path]?.merge(properties) { $1 }
        if objects[path]?[Self.activeAccessPoint] == nil { objects[path]?[Self.activeAccessPoint] = .objectPath(.root) }
    }

    /// Applies one signal from NetworkManager; returns whether anything changed.
    mutating func apply(_ signal: Message) -> Bool {
        guard let path = signal.path, objects[path] != nil else { return false }
        switch (signal.interface, signal.member?.rawValue) {
        case (.properties?, "PropertiesChanged"?):
            guard signal.body.count >= 2, case .dictionary(_, _, let entries) = signal.body[1] else { return false }
            var changed = false
            for entry in entries {
                guard let name = entry.key.stringValue else { continue }
                let value = entry.value.unwrappingVariant
                if objects[path]?[name] != value {
                    objects[path]?[name] = value
                    changed = true
                }
            }
            return changed
        case (NetworkManagerNames.managerInterface?, "StateChanged"?) where path == NetworkManagerNames.managerPath:
            // Older NetworkManagers announce State only through this signal.
            guard case .uint32(let state)? = signal.body.first, objects[path]?["State"] != .uint32(state) else { return false }
            objects[path]?["State"] = .uint32(state)
            return true
        default:
            return false
        }
    }

    /// Whether the manager answered `GetAll` (NetworkManager owns its name a
    /// moment before it exports the manager object).
    var knowsManager: Bool {
        !(objects[NetworkManagerNames.managerPath] ?? [:]).isEmpty
    }

    /// Objects the snapshot needs that we have not fetched yet, with the
    /// interface to fetch for each.
    var missingObjects: [(path: ObjectPath, interface: InterfaceName)] {
        referencedObjects.filter { object in
            guard object.interface == NetworkManagerNames.wirelessInterface else { return objects[object.path] == nil }
            return objects[object.path]?.isEmpty == false && objects[object.path]?[Self.activeAccessPoint] == nil
        }
    }

    /// Drops objects nothing refers to any more.
    mutating func pruneUnreferenced() {
        let referenced = Set(referencedObjects.map(\.path) + [NetworkManagerNames.managerPath])
        objects = objects.filter { referenced.contains($0.key) }
    }

    /// Each object once, in the order first referred to: the primary and
    /// activating connections, their devices and IPv4 configs; then every
    /// device and active connection the manager lists, and each device's
    /// active connection.
    private var referencedObjects: [(path: ObjectPath, interface: InterfaceName)] {
        var result = connectionObjects
        // A Wi-Fi device of the primary connection: its access point, whose `Strength` is the
        // link's quality (`ActiveAccessPoint` is on `Device.Wireless`, read once per device).
        var seen = Set(result.map(\.path))
        let manager = objects[NetworkManagerNames.managerPath] ?? [:]
        for device in primaryWiFiDevices(manager) {
            guard let accessPoint = objects[device]?[Self.activeAccessPoint] else {
                result.append((device, NetworkManagerNames.wirelessInterface))
                continue
            }
            if let accessPoint = path(accessPoint), seen.insert(accessPoint).inserted {
                result.append((accessPoint, NetworkManagerNames.accessPointInterface))
            }
        }
        return result
    }

    /// `ActiveAccessPoint`, on `Device.Wireless`.
    private static let activeAccessPoint = "ActiveAccessPoint"
    /// `NM_DEVICE_TYPE_WIFI`, `NM_DEVICE_TYPE_MODEM`.
    private static let deviceTypeWiFi: UInt32 = 2
    private static let deviceTypeModem: UInt32 = 8

    /// The Wi-Fi devices of the primary connection that answered.
    private func primaryWiFiDevices(_ manager: [String: DBusValue]) -> [ObjectPath] {
        guard let primary = path(manager["PrimaryConnection"]) else { return [] }
        return paths(objects[primary]?["Devices"]).filter {
            uint32(objects[$0]?["DeviceType"]) == Self.deviceTypeWiFi
        }
    }

    /// The connections, their devices and IPv4 configs.
    private var connectionObjects: [(path: ObjectPath, interface: InterfaceName)] {
        var result: [(ObjectPath, InterfaceName)] = []
        var seen: Set<ObjectPath> = []
        func add(_ object: ObjectPath, _ interface: InterfaceName) {
            if seen.insert(object).inserted { result.append((object, interface)) }
        }
        let manager = objects[NetworkManagerNames.managerPath] ?? [:]
        for connection in [path(manager["PrimaryConnection"]), path(manager["ActivatingConnection"])].compactMap({ $0 }) {
            add(connection, NetworkManagerNames.activeConnectionInterface)
            for device in paths(objects[connection]?["Devices"]) {
                add(device, NetworkManagerNames.deviceInterface)
                if let config = path(objects[device]?["Ip4Config"]) {
                    add(config, NetworkManagerNames.ip4ConfigInterface)
                }
            }
        }
        for device in paths(manager["Devices"]) {
            add(device, NetworkManagerNames.deviceInterface)
            if let connection = path(objects[device]?["ActiveConnection"]) {
                add(connection, NetworkManagerNames.activeConnectionInterface)
            }
        }
        for connection in paths(manager["ActiveConnections"]) {
            add(connection, NetworkManagerNames.activeConnectionInterface)
        }
        return result
    }

    /// What NetworkManager reports, in ReachdCore's terms.
    var snapshot: NetworkManagerSnapshot {
        let manager = objects[NetworkManagerNames.managerPath] ?? [:]
        let primary = path(manager["PrimaryConnection"])
        let activating = path(manager["ActivatingConnection"])
        let primaryDevices = devices(of: primary)
        var primaryType = string(manager["PrimaryConnectionType"])
        if primaryType.isEmpty, let primary { primaryType = string(objects[primary]?["Type"]) }
        return NetworkManagerSnapshot(
            state: NMState(rawValue: uint32(manager["State"])),
            connectivity: NMConnectivityState(rawValue: uint32(manager["Connectivity"])),
            metered: NMMetered(rawValue: uint32(manager["Metered"])),
            primaryConnectionType: primaryType,
            primaryDevices: primaryDevices,
            primaryRouteHasGateway: gatewayKnown(for: primary),
            activatingConnectionType: activating.map { string(objects[$0]?["Type"]) } ?? "",
            activatingDevices: devices(of: activating),
            startup: manager["Startup"] == .boolean(true),
            connectivityCheckEnabled: manager["ConnectivityCheckEnabled"] == .boolean(true),
            connectivityCheckAvailable: manager["ConnectivityCheckAvailable"] == .boolean(true),
            devices: allDevices(manager),
            vpnActivating: paths(manager["ActiveConnections"]).contains { connection in
                objects[connection]?["Vpn"] == .boolean(true)
                    && uint32(objects[connection]?["State"]) == Self.activeConnectionActivating
            })
    }

    /// `NM_ACTIVE_CONNECTION_STATE_ACTIVATING`.
    private static let activeConnectionActivating: UInt32 = 1
    /// `NM_ACTIVATION_STATE_FLAG_EXTERNAL`: the active connection mirrors a configuration made outside NetworkManager.
    private static let activationStateFlagExternal: UInt32 = 0x80

    /// Every device the manager lists that answered, with what says whether NetworkManager controls it.
    private func allDevices(_ manager: [String: DBusValue]) -> [NetworkManagerDevice] {
        paths(manager["Devices"]).compactMap { device in
            guard let properties = objects[device], !properties.isEmpty else { return nil }
            let connection = path(properties["ActiveConnection"]).flatMap { objects[$0] } ?? [:]
            return NetworkManagerDevice(
                type: NMDeviceType(rawValue: uint32(properties["DeviceType"])),
                interface: string(properties["Interface"]),
                ipInterface: string(properties["IpInterface"]),
                // A NetworkManager too old to say counts as managing it: no override on a guess.
                managed: properties["Managed"] != .boolean(false),
                state: NMDeviceState(rawValue: uint32(properties["State"])),
                ip4Connectivity: NMConnectivityState(rawValue: uint32(properties["Ip4Connectivity"])),
                ip6Connectivity: NMConnectivityState(rawValue: uint32(properties["Ip6Connectivity"])),
                isExternal: uint32(connection["StateFlags"]) & Self.activationStateFlagExternal != 0,
                signalStrength: signalStrength(ofDevice: properties),
                modemPath: uint32(properties["DeviceType"]) == Self.deviceTypeModem
                    ? properties["Udi"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 } : nil)
        }
    }

    /// The active access point's `Strength` (`y`, percent), nil without one.
    private func signalStrength(ofDevice properties: [String: DBusValue]) -> UInt8? {
        guard let accessPoint = path(properties[Self.activeAccessPoint]),
              case .byte(let strength)? = objects[accessPoint]?["Strength"] else { return nil }
        return min(strength, 100)
    }

    private func devices(of connection: ObjectPath?) -> [NetworkDevice] {
        guard let connection else { return [] }
        return paths(objects[connection]?["Devices"]).compactMap { device in
            guard let properties = objects[device], !properties.isEmpty else { return nil }
            return NetworkDevice(
                type: NMDeviceType(rawValue: uint32(properties["DeviceType"])),
                interface: string(properties["Interface"]),
                ipInterface: string(properties["IpInterface"]))
        }
    }

    /// nil when unknown: no device or no IPv4 config to ask.
    private func gatewayKnown(for connection: ObjectPath?) -> Bool? {
        guard let connection, let device = paths(objects[connection]?["Devices"]).first,
              let config = path(objects[device]?["Ip4Config"]),
              let properties = objects[config], let gateway = properties["Gateway"] else { return nil }
        return !string(gateway).isEmpty
    }

    // NetworkManager uses "/" for "none".
    private func path(_ value: DBusValue?) -> ObjectPath? {
        guard case .objectPath(let path)? = value, path != .root else { return nil }
        return path
    }

    private func paths(_ value: DBusValue?) -> [ObjectPath] {
        guard case .array(_, let items)? = value else { return [] }
        return items.compactMap { path($0) }
    }

    private func string(_ value: DBusValue?) -> String { value?.stringValue ?? "" }

    private func uint32(_ value: DBusValue?) -> UInt32 {
        switch value {
        case .uint32(let number)?: number
        case .int32(let number)?: UInt32(truncatingIfNeeded: number)
        default: 0
        }
    }
}
