import Foundation
import Glibc

/// python-dbusmock's NetworkManager template on a private system bus, started
/// the way `Scripts/harness/nm-mock` does it, and driven with `busctl` calls
/// from `Scripts/harness/README.md`.
///
/// It starts connected: State 70 (CONNECTED_GLOBAL), Connectivity 4 (FULL),
/// no primary connection, which reachd publishes as Reachable via WiFi,
/// flags Reachable, InterfaceType other.
public final class NetworkManagerMock: Sendable {
    public static let name = "org.freedesktop.NetworkManager"
    public static let manager = "/org/freedesktop/NetworkManager"
    public static let mockInterface = "org.freedesktop.DBus.Mock"
    public static let properties = "org.freedesktop.DBus.Properties"

    public let bus: PrivateBus
    private let process: ChildProcess

    /// Starts the template and adds the manager properties it lacks, with
    /// NetworkManager's values when nothing is connected.
    /// `parameters`: the template's JSON parameters (`{"State": 20}`: it appears in that state,
    /// as a restarted NetworkManager does; numbers arrive as int32, which reachd reads as their values).
    public init(on bus: PrivateBus, parameters: String? = nil) async throws {
        self.bus = bus
        guard try await bus.owner(of: Self.name) == nil else { throw TestFailure("\(Self.name) is already on the bus") }
        // The Debian python has python3-dbusmock (a PYTHONPATH for another one
        // must not leak in); dbusmock reads the bus from this variable.
        process = try ChildProcess("/usr/bin/python3", ["-m", "dbusmock", "--system", "--template", "networkmanager"]
                                       + (parameters.map { ["--parameters", $0] } ?? []),
                                   environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address],
                                   unsetting: ["PYTHONPATH", "PYTHONHOME"])
        do {
            try await eventually(timeout: .seconds(20), "dbusmock owns \(Self.name)") {
                if let status = process.poll() {
                    throw TestFailure("dbusmock exited with \(status): \(process.standardError)")
                }
                return try await bus.owner(of: Self.name) != nil
            }
            for (property, type, value) in [("PrimaryConnection", "o", "/"), ("PrimaryConnectionType", "s", ""),
                                            ("ActivatingConnection", "o", "/"), ("Metered", "u", "0")] {
                try await call(Self.manager, Self.mockInterface, "AddProperty", "ssv", Self.name, property, type, value)
            }
        } catch {
            process.stop(SIGKILL)
            throw error
        }
    }

    /// `busctl call org.freedesktop.NetworkManager PATH INTERFACE MEMBER SIGNATURE ARGUMENTS…`; the reply's text.
    @discardableResult
    public func call(_ path: String, _ interface: String, _ member: String, _ signature: String = "", _ arguments: String...) async throws -> String {
        var all = ["--address=\(bus.address)", "call", Self.name, path, interface, member]
        if !signature.isEmpty { all += [signature] + arguments }
        return try await runToolChecked("busctl", all).standardOutput
    }

    /// A template helper on `/org/freedesktop`.
    @discardableResult
    public func mock(_ member: String, _ signature: String, _ arguments: String...) async throws -> String {
        var all = ["--address=\(bus.address)", "call", Self.name, "/org/freedesktop", Self.mockInterface, member, signature]
        all += arguments
        return try await runToolChecked("busctl", all).standardOutput
    }

    /// `org.freedesktop.DBus.Properties.Set` on the manager: one standard
    /// PropertiesChanged for that property, as real NetworkManager emits.
    public func setManager(_ property: String, _ type: String, _ value: String) async throws {
        try await call(Self.manager, Self.properties, "Set", "ssv", Self.name, property, type, value)
    }

    /// NetworkManager's own `StateChanged(u)` signal, which it sends besides the property change.
    public func emitStateChanged(_ state: UInt32) async throws {
        try await call(Self.manager, Self.mockInterface, "EmitSignal", "sssav", Self.name, "StateChanged", "u", "1", "u", "\(state)")
    }

    /// NetworkManager's `State` (20 DISCONNECTED, 40 CONNECTING, 70 CONNECTED_GLOBAL, …)
    /// as a real NetworkManager changes it: the property, then StateChanged
    /// (only the property when `emittingStateChanged` is false).
    public func setState(_ state: UInt32, emittingStateChanged: Bool = true) async throws {
        try await setManager("State", "u", "\(state)")
        if emittingStateChanged { try await emitStateChanged(state) }
    }

    /// Adds method `name` to the manager (interface `org.freedesktop.DBus.Mock`),
    /// running the Python `code` with `self` the manager object, and calls it
    /// without waiting for its reply: for code that stalls the mock
    /// (`time.sleep`), as a busy or hung NetworkManager would.
    public func runWithoutWaiting(_ name: String, code: String) async throws {
        try await call(Self.manager, Self.mockInterface, "AddMethod", "sssss", Self.mockInterface, name, "", "", code)
        try await runToolChecked("busctl", ["--address=\(bus.address)", "--expect-reply=no", "call", Self.name,
                                            Self.manager, Self.mockInterface, name])
    }

    // MARK: Devices and connections (no manager property is touched)

    /// Wi-Fi device `wlan0` with access point, profile and active connection `…/ActiveConnection/wifi0`.
    public func addWiFi() async throws {
        let device = Self.manager + "/Devices/wlan0"
        try await mock("AddWiFiDevice", "ssi", "wlan0", "wlan0", "30")
        try await mock("AddAccessPoint", "ssssuuuyu", device, "ap0", "HomeNet", "00:11:22:33:44:55", "2", "2437", "54000", "80", "256")
        try await mock("AddWiFiConnection", "ssss", device, "wifi0", "HomeNet", "wpa-psk")
        try await mock("AddActiveConnection", "assssu", "1", device, Self.manager + "/Settings/wifi0",
                       Self.manager + "/AccessPoint/ap0", "wifi0", "2")
        // Real NetworkManager names the access point it is associated with; the template does not.
        try await call(device, Self.mockInterface, "AddProperty", "ssv", Self.name + ".Device.Wireless",
                       "ActiveAccessPoint", "o", Self.accessPoint)
    }

    /// `wlan0`'s access point, `Strength` 80 when added.
    public static let accessPoint = manager + "/AccessPoint/ap0"

    /// The access point's `Strength` (0–100), as NetworkManager changes it after a scan: one
    /// `PropertiesChanged`.
    public func setAccessPointStrength(_ strength: UInt8) async throws {
        try await call(Self.accessPoint, Self.properties, "Set", "ssv", Self.name + ".AccessPoint", "Strength", "y", "\(strength)")
    }

    /// Ethernet device `eth0` with carrier, a profile and active connection `…/ActiveConnection/eth0`.
    public func addEthernet() async throws {
        let device = Self.manager + "/Devices/eth0"
        try await mock("AddEthernetDevice", "ssi", "eth0", "eth0", "30")
        try await call(device, Self.properties, "Set", "ssv", Self.name + ".Device.Wired", "Carrier", "b", "true")
        let profile = try await addProfile(id: "Wired", type: "802-3-ethernet", uuid: "0d3e0d7c-1b4e-4b8a-9a55-1d3c2a6b2e01")
        try await mock("AddActiveConnection", "assssu", "1", device, profile, "/", "eth0", "2")
    }

    /// Modem device `modem0` (DeviceType 8, Interface ttyUSB2, IpInterface wwan0),
    /// a gsm profile and active connection `…/ActiveConnection/gsm0`.
    public func addModem() async throws {
        let device = Self.manager + "/Devices/modem0"
        try await mock("AddObject", "ssa{sv}a(ssss)", device, Self.name + ".Device.Modem", "2",
                       "ModemCapabilities", "u", "4", "CurrentCapabilities", "u", "4", "0")
        try await call(device, Self.mockInterface, "AddProperties", "sa{sv}", Self.name + ".Device", "9",
                       "DeviceType", "u", "8", "Interface", "s", "ttyUSB2", "IpInterface", "s", "wwan0",
                       "State", "u", "30", "StateReason", "(uu)", "30", "0", "ActiveConnection", "o", "/",
                       "AvailableConnections", "ao", "0", "Managed", "b", "true", "Driver", "s", "dbusmock")
        let profile = try await addProfile(id: "Mobile", type: "gsm", uuid: "5b7c5d1e-8f0a-4c1e-9d7e-2f6a3b4c5d02")
        try await mock("AddActiveConnection", "assssu", "1", device, profile, "/", "gsm0", "2")
    }

    /// A VPN active connection `…/ActiveConnection/vpn0` whose device is `wlan0`
    /// (added without devices first: the template would otherwise make the VPN
    /// the device's ActiveConnection, which real NetworkManager does not).
    public func addVPNOverWiFi() async throws {
        let profile = try await addProfile(id: "Work", type: "vpn", uuid: "9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c03")
        try await mock("AddActiveConnection", "assssu", "0", profile, "/", "vpn0", "2")
        let active = Self.manager + "/ActiveConnection/vpn0"
        try await call(active, Self.properties, "Set", "ssv", Self.name + ".Connection.Active", "Devices", "ao", "1",
                       Self.manager + "/Devices/wlan0")
        try await call(active, Self.mockInterface, "AddProperties", "sa{sv}", Self.name + ".VPN.Connection", "2",
                       "VpnState", "u", "5", "Banner", "s", "")
    }

    private func addProfile(id: String, type: String, uuid: String) async throws -> String {
        let reply = try await call(Self.manager + "/Settings", Self.name + ".Settings", "AddConnection", "a{sa{sv}}",
                                   "1", "connection", "3", "id", "s", id, "type", "s", type, "uuid", "s", uuid)
        return unquoted(reply, type: "o")
    }

    /// Stops the mock: NetworkManager leaves the bus.
    public func stop() {
        process.stop(SIGTERM)
    }

    deinit { process.stop(SIGKILL) }
}
