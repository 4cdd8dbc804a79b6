import Foundation

/// python-dbusmock's NetworkManager template on a private system bus (Scripts/harness/README.md),
/// with the manager properties the template lacks added as NetworkManager has them when idle.
///
/// It starts connected: State 70 (CONNECTED_GLOBAL), Connectivity 4 (FULL), no primary connection,
/// which reachd publishes as Reachable via WiFi, flags Reachable, InterfaceType other.
final class NetworkManagerMock: Sendable {
    static let name = "org.freedesktop.NetworkManager"
    static let manager = "/org/freedesktop/NetworkManager"

    let bus: PrivateBus
    private let process: ChildProcess

    init(on bus: PrivateBus) async throws {
        self.bus = bus
        // The Debian python has python3-dbusmock; a PYTHONPATH for another one must not leak in.
        process = try ChildProcess(
            "/usr/bin/python3", ["-m", "dbusmock", "--system", "--template", "networkmanager"],
            environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address], removing: ["PYTHONPATH", "PYTHONHOME"])
        do {
            try await eventually("dbusmock owns \(Self.name): \(process.standardError)") {
                if process.poll() != nil { throw TestFailure("dbusmock exited: \(process.standardError)") }
                return try await bus.hasOwner(Self.name)
            }
            for (property, signature, value) in [
                ("PrimaryConnection", "o", "/"), ("PrimaryConnectionType", "s", ""),
                ("ActivatingConnection", "o", "/"), ("Metered", "u", "0"),
            ] {
                try await check(bus.busctl("call", Self.name, Self.manager, "org.freedesktop.DBus.Mock", "AddProperty",
                                           "ssv", Self.name, property, signature, value))
            }
        } catch {
            process.stop()
            throw error
        }
    }

    /// Sets a manager property with `Properties.Set`, which emits the standard `PropertiesChanged`
    /// as real NetworkManager does.
    func set(_ property: String, _ signature: String, _ value: String) async throws {
        try await check(bus.busctl("call", Self.name, Self.manager, "org.freedesktop.DBus.Properties", "Set",
                                   "ssv", Self.name, property, signature, value))
    }

    /// NetworkManager's `State` (20 DISCONNECTED, 40 CONNECTING, 70 CONNECTED_GLOBAL, …).
    func setState(_ state: UInt32) async throws {
        try await set("State", "u", "\(state)")
    }

    func stop() {
        process.stop()
    }

    deinit { stop() }

    private func check(_ result: ToolResult) throws {
        guard result.succeeded else { throw TestFailure("busctl failed: \(result.transcript)") }
    }
}
