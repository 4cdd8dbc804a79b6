internal import ReachdDBus
internal import ReachdEventLoops
import Glibc

/// Whether the system bus's NetworkManager manages this process's network namespace (issue 40, 6).
///
/// The system bus's socket is a file: a process in a network namespace of its own (a container, an
/// `unshare -n`) that still sees `/run/dbus/system_bus_socket` reaches the host's NetworkManager,
/// whose word ("Reachable via WiFi") is about the host's links, not this namespace's. Contract 4
/// says never another namespace's answer, from the first one on; the kernel's cross-check would
/// correct it only after its delay. NetworkManager does not say which namespace it serves, but
/// its devices name their interfaces: when it lists devices and none of them is a link of this
/// namespace (`if_nameindex`, which asks this namespace's kernel), it manages another namespace,
/// and the in-process engine follows the kernel without it (and without the other daemons on
/// that bus, which describe the same other namespace).
///
/// A NetworkManager with no devices listed gives no evidence either way and is kept, as is one
/// that cannot be asked (absent, no bus): the engine deals with those as it always has.
enum NetworkManagerNamespace {
    /// The interfaces NetworkManager lists, when none is a link here; nil when it manages one of
    /// ours, lists none, or could not be asked.
    static func foreignDevices(systemBusAddress: String?, loop: EventLoop, timeout: Duration = .seconds(2)) async -> [String]? {
        let bus: Connection
        do {
            if let systemBusAddress {
                bus = try await Connection.open(address: systemBusAddress, loop: loop)
            } else {
                bus = try await Connection.system(loop: loop)
            }
        } catch {
            return nil
        }
        defer { Task { await bus.close() } }
        guard let interfaces = try? await deviceInterfaces(on: bus, timeout: timeout) else { return nil }
        // The loopback device NetworkManager 1.42+ lists is in every namespace: no evidence.
        let devices = interfaces.filter { $0 != "lo" }
        guard !devices.isEmpty else { return nil }
        let ours = linkNames()
        return devices.contains(where: ours.contains) ? nil : devices
    }

    /// Every device's `Interface`, and its `IpInterface` where it has one of its own.
    private static func deviceInterfaces(on bus: Connection, timeout: Duration) async throws -> [String] {
        // Asked only when it runs: a call to its name would have the bus start it.
        let owned = try await bus.call(destination: .bus, path: "/org/freedesktop/DBus", interface: .bus, member: "NameHasOwner",
                                       body: [.string(networkManager.rawValue)], timeout: timeout)
        guard case .boolean(true)? = owned.first else { return [] }
        let reply = try await bus.call(destination: networkManager, path: managerPath, interface: .properties, member: "Get",
                                       body: [.string(managerInterface), .string("Devices")], timeout: timeout)
        guard case .array(_, let paths)? = reply.first?.unwrappingVariant else { return [] }
        var interfaces: [String] = []
        for case .objectPath(let path) in paths {
            let properties = try await bus.call(destination: networkManager, path: path, interface: .properties, member: "GetAll",
                                                body: [.string(deviceInterface)], timeout: timeout)
            guard case .dictionary(_, _, let entries)? = properties.first else { continue }
            for entry in entries where ["Interface", "IpInterface"].contains(entry.key.stringValue) {
                if let name = entry.value.unwrappingVariant.stringValue, !name.isEmpty, !interfaces.contains(name) {
                    interfaces.append(name)
                }
            }
        }
        return interfaces
    }

    /// The names of this network namespace's links.
    static func linkNames() -> Set<String> {
        guard let list = if_nameindex() else { return [] }
        defer { if_freenameindex(list) }
        var names: Set<String> = []
        var entry = list
        while entry.pointee.if_index != 0, let name = entry.pointee.if_name {
            names.insert(String(cString: name))
            entry += 1
        }
        return names
    }

    private static let networkManager: BusName = "org.freedesktop.NetworkManager"
    private static let managerPath: ObjectPath = "/org/freedesktop/NetworkManager"
    private static let managerInterface = "org.freedesktop.NetworkManager"
    private static let deviceInterface = "org.freedesktop.NetworkManager.Device"
}
