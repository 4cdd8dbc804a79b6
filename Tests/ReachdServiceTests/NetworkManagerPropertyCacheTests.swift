import ReachdDBus
import ReachdCore
import Testing
@testable import ReachdEngine

/// What reachd knows of NetworkManager is built from `GetAll` answers and
/// signals, in arrival order: it asks for exactly the objects the published
/// view needs (manager → primary and activating connections → their devices
/// → the IPv4 config), follows changes, and forgets what nothing refers to.
/// Fed here as NetworkManager would feed it, without a bus.
@Suite("NetworkManager property cache: GetAll answers and signals → snapshot")
struct NetworkManagerPropertyCacheTests {
    static let manager = NetworkManagerNames.managerPath
    static let wifiConnection: ObjectPath = "/org/freedesktop/NetworkManager/ActiveConnection/1"
    static let vpnConnection: ObjectPath = "/org/freedesktop/NetworkManager/ActiveConnection/2"
    static let wifiDevice: ObjectPath = "/org/freedesktop/NetworkManager/Devices/3"
    static let vpnDevice: ObjectPath = "/org/freedesktop/NetworkManager/Devices/7"
    static let wifiConfig: ObjectPath = "/org/freedesktop/NetworkManager/IP4Config/5"
    static let accessPoint: ObjectPath = "/org/freedesktop/NetworkManager/AccessPoint/11"

    @Test func followsTheManagerToItsConnectionDevicesAndIPv4ConfigOneStepAtATime() {
        var cache = NetworkManagerPropertyCache()
        cache.store(Self.managerProperties(), at: Self.manager)
        #expect(cache.missingObjects.map(\.path) == [Self.wifiConnection])
        #expect(cache.missingObjects.map(\.interface) == [NetworkManagerNames.activeConnectionInterface])
        cache.store(Self.connection(type: "802-11-wireless", devices: [Self.wifiDevice]), at: Self.wifiConnection)
        #expect(cache.missingObjects.map(\.path) == [Self.wifiDevice])
        #expect(cache.missingObjects.map(\.interface) == [NetworkManagerNames.deviceInterface])
        cache.store(Self.device(type: .wifi, interface: "wlan0", config: Self.wifiConfig), at: Self.wifiDevice)
        #expect(cache.missingObjects.map(\.path) == [Self.wifiConfig, Self.wifiDevice])
        #expect(cache.missingObjects.map(\.interface) == [NetworkManagerNames.ip4ConfigInterface, NetworkManagerNames.wirelessInterface],
                "a Wi-Fi device's Device.Wireless names its access point")
        cache.store(["Gateway": .string("192.168.1.1")], at: Self.wifiConfig)
        cache.store(Self.wireless(accessPoint: Self.accessPoint), at: Self.wifiDevice, interface: NetworkManagerNames.wirelessInterface)
        #expect(cache.missingObjects.map(\.path) == [Self.accessPoint])
        #expect(cache.missingObjects.map(\.interface) == [NetworkManagerNames.accessPointInterface])
        cache.store(["Strength": .byte(64), "Ssid": .array(element: "y", [])], at: Self.accessPoint)
        #expect(cache.missingObjects.isEmpty)
    }

    @Test func theAccessPointsStrengthIsTheWiFiDevicesSignalAndFollowsItsSignals() {
        var cache = Self.connectedOverWiFi()
        _ = cache.apply(Self.propertiesChanged(at: Self.manager, ["Devices": .array(element: "o", [.objectPath(Self.wifiDevice)])]))
        #expect(cache.snapshot.device(kernelName: "wlan0")?.signalStrength == 80)
        let weaker = cache.apply(Self.propertiesChanged(at: Self.accessPoint, ["Strength": .byte(31)]))
        #expect(weaker)
        #expect(cache.snapshot.device(kernelName: "wlan0")?.signalStrength == 31)
        let roamed = cache.apply(Self.propertiesChanged(at: Self.wifiDevice, ["ActiveAccessPoint": .objectPath(.root)]))
        #expect(roamed)
        #expect(cache.snapshot.device(kernelName: "wlan0")?.signalStrength == nil, "no access point, no signal")
        #expect(cache.missingObjects.isEmpty)
    }

    @Test func aWiFiDeviceWithoutTheWirelessInterfaceIsAskedOnceAndHasNoSignal() {
        var cache = NetworkManagerPropertyCache()
        cache.store(Self.managerProperties(), at: Self.manager)
        cache.store(Self.connection(type: "802-11-wireless", devices: [Self.wifiDevice]), at: Self.wifiConnection)
        cache.store(Self.device(type: .wifi, interface: "wlan0", config: .root), at: Self.wifiDevice)
        #expect(cache.missingObjects.map(\.interface) == [NetworkManagerNames.wirelessInterface])
        cache.store([:], at: Self.wifiDevice, interface: NetworkManagerNames.wirelessInterface)  // UnknownInterface
        #expect(cache.missingObjects.isEmpty)
        #expect(cache.snapshot.primaryDevices.map(\.interface) == ["wlan0"], "the device itself stays")
    }

    @Test func aFullyReadCacheGivesTheSnapshotNetworkManagerReports() {
        let cache = Self.connectedOverWiFi()
        #expect(cache.knowsManager)
        #expect(cache.snapshot == NetworkManagerSnapshot(
            state: .connectedGlobal, connectivity: .full, metered: .guessNo,
            primaryConnectionType: "802-11-wireless",
            primaryDevices: [NetworkDevice(type: .wifi, interface: "wlan0", ipInterface: "wlan0")],
            primaryRouteHasGateway: true))
    }

    @Test func slashMeansNoConnectionAndAsksForNothing() {
        var cache = NetworkManagerPropertyCache()
        cache.store(Self.managerProperties(state: 20, primary: .root, primaryType: ""), at: Self.manager)
        #expect(cache.missingObjects.isEmpty)
        #expect(cache.snapshot == NetworkManagerSnapshot(state: .disconnected, connectivity: .full, metered: .guessNo))
    }

    @Test func anObjectThatVanishedIsNotAskedForAgainAndLeavesNoDevice() {
        var cache = NetworkManagerPropertyCache()
        cache.store(Self.managerProperties(), at: Self.manager)
        cache.store(Self.connection(type: "802-11-wireless", devices: [Self.wifiDevice]), at: Self.wifiConnection)
        cache.store([:], at: Self.wifiDevice)  // GetAll failed: gone between mention and question
        #expect(cache.missingObjects.isEmpty)
        #expect(cache.snapshot.primaryDevices.isEmpty)
        #expect(cache.snapshot.primaryRouteHasGateway == nil, "no device, so no IPv4 config to tell")
    }

    @Test func aGatewayOfEmptyTextMeansADirectRoute() {
        var cache = Self.connectedOverWiFi()
        cache.store(["Gateway": .string("")], at: Self.wifiConfig)
        #expect(cache.snapshot.primaryRouteHasGateway == false)
    }

    @Test func propertiesChangedUpdatesTheSnapshotAndSaysWhetherAnythingChanged() {
        var cache = Self.connectedOverWiFi()
        let becamePortal = cache.apply(Self.propertiesChanged(at: Self.manager, ["Connectivity": .uint32(2)]))
        #expect(becamePortal)
        #expect(cache.snapshot.connectivity == .portal)
        let samePortalAgain = cache.apply(Self.propertiesChanged(at: Self.manager, ["Connectivity": .uint32(2)]))
        #expect(!samePortalAgain, "the same value again is no change")
        let interfaceRenamed = cache.apply(Self.propertiesChanged(at: Self.wifiDevice, ["IpInterface": .string("wlp2s0")]))
        #expect(interfaceRenamed)
        #expect(cache.snapshot.primaryDevices.map(\.publishedInterface) == ["wlp2s0"])
    }

    @Test func signalsFromObjectsTheCacheDoesNotHoldAreIgnored() {
        var cache = Self.connectedOverWiFi()
        let before = cache
        let stranger: ObjectPath = "/org/freedesktop/NetworkManager/Devices/99"
        let strangerChanged = cache.apply(Self.propertiesChanged(at: stranger, ["DeviceType": .uint32(1)]))
        #expect(!strangerChanged)
        let deviceAdded = cache.apply(.signal(path: Self.manager, interface: NetworkManagerNames.managerInterface,
                                              member: "DeviceAdded", body: [.objectPath(stranger)]))
        #expect(!deviceAdded)
        #expect(cache == before)
    }

    @Test func olderNetworkManagersStateChangedSignalUpdatesState() {
        var cache = Self.connectedOverWiFi()
        let stateChanged = Message.signal(path: Self.manager, interface: NetworkManagerNames.managerInterface,
                                          member: "StateChanged", body: [.uint32(20)])
        let disconnected = cache.apply(stateChanged)
        #expect(disconnected)
        #expect(cache.snapshot.state == .disconnected)
        let sameStateAgain = cache.apply(stateChanged)
        #expect(!sameStateAgain, "the same state again is no change")
    }

    @Test func theSnapshotSaysWhileNetworkManagerIsStartingUp() {
        var cache = NetworkManagerPropertyCache()
        #expect(!cache.knowsManager)
        var starting = Self.managerProperties()
        starting["Startup"] = .boolean(true)
        cache.store(starting, at: Self.manager)
        #expect(cache.knowsManager && cache.snapshot.startup)
        let startupOver = cache.apply(Self.propertiesChanged(at: Self.manager, ["Startup": .boolean(false)]))
        #expect(startupOver)
        #expect(!cache.snapshot.startup)
    }

    @Test func aManagerThatDidNotAnswerIsNotKnown() {
        var cache = NetworkManagerPropertyCache()
        cache.store([:], at: Self.manager)
        #expect(!cache.knowsManager)
    }

    static let ethernetDevice: ObjectPath = "/org/freedesktop/NetworkManager/Devices/4"
    static let ethernetConnection: ObjectPath = "/org/freedesktop/NetworkManager/ActiveConnection/9"

    @Test func everyDeviceAndActiveConnectionIsReadOnceForTheCrossCheck() {
        var cache = Self.connectedOverWiFi()
        let listed = cache.apply(Self.propertiesChanged(at: Self.manager, [
            "Devices": .array(element: "o", [.objectPath(Self.wifiDevice), .objectPath(Self.ethernetDevice)]),
            "ActiveConnections": .array(element: "o", [.objectPath(Self.wifiConnection), .objectPath(Self.vpnConnection)]),
        ]))
        #expect(listed)
        #expect(cache.missingObjects.map(\.path) == [Self.ethernetDevice, Self.vpnConnection], "the Wi-Fi device and connection are read already")
        var ethernet = Self.device(type: .ethernet, interface: "eth0", config: .root)
        ethernet["Managed"] = .boolean(true)
        ethernet["State"] = .uint32(100)
        ethernet["ActiveConnection"] = .objectPath(Self.ethernetConnection)
        ethernet["Ip4Connectivity"] = .uint32(4)
        cache.store(ethernet, at: Self.ethernetDevice)
        var vpn = Self.connection(type: "vpn", devices: [Self.wifiDevice])
        vpn["Vpn"] = .boolean(true)
        vpn["State"] = .uint32(1)
        cache.store(vpn, at: Self.vpnConnection)
        #expect(cache.missingObjects.map(\.path) == [Self.ethernetConnection], "the device's own active connection")
        var external = Self.connection(type: "802-3-ethernet", devices: [Self.ethernetDevice])
        external["StateFlags"] = .uint32(0x80 | 0x4)
        cache.store(external, at: Self.ethernetConnection)
        #expect(cache.missingObjects.isEmpty)

        let snapshot = cache.snapshot
        #expect(snapshot.vpnActivating)
        #expect(snapshot.devices.map(\.kernelName) == ["wlan0", "eth0"])
        let eth0 = snapshot.device(kernelName: "eth0")
        #expect(eth0?.isExternal == true && eth0?.isControlled == false, "configured outside NetworkManager")
        #expect(eth0?.ip4Connectivity == .full)
        #expect(snapshot.device(kernelName: "wlan0")?.isControlled == true, "no Managed property: counted as managed")
        #expect(snapshot.device(kernelName: "rv0") == nil)
    }

    @Test func objectsNothingRefersToAreForgottenWhenThePrimaryConnectionMoves() {
        var cache = Self.connectedOverWiFi()
        let primaryMoved = cache.apply(Self.propertiesChanged(at: Self.manager, [
            "PrimaryConnection": .objectPath(Self.vpnConnection), "PrimaryConnectionType": .string("vpn"),
        ]))
        #expect(primaryMoved)
        #expect(cache.missingObjects.map(\.path) == [Self.vpnConnection])
        cache.store(Self.connection(type: "vpn", devices: [Self.vpnDevice]), at: Self.vpnConnection)
        cache.store(Self.device(type: .tun, interface: "tun0", config: .root), at: Self.vpnDevice)
        cache.pruneUnreferenced()
        #expect(Set(cache.objects.keys) == [Self.manager, Self.vpnConnection, Self.vpnDevice])
        #expect(cache.snapshot.primaryDevices == [NetworkDevice(type: .tun, interface: "tun0", ipInterface: "tun0")])
    }

    @Test func theActivatingConnectionIsFollowedToo() {
        var cache = Self.connectedOverWiFi()
        let activatingAppeared = cache.apply(Self.propertiesChanged(at: Self.manager, ["ActivatingConnection": .objectPath(Self.vpnConnection)]))
        #expect(activatingAppeared)
        #expect(cache.missingObjects.map(\.path) == [Self.vpnConnection])
        cache.store(Self.connection(type: "vpn", devices: [Self.vpnDevice]), at: Self.vpnConnection)
        cache.store(Self.device(type: .tun, interface: "tun0", config: .root), at: Self.vpnDevice)
        #expect(cache.snapshot.activatingConnectionType == "vpn")
        #expect(cache.snapshot.activatingDevices.map(\.interface) == ["tun0"])
    }

    @Test func withoutPrimaryConnectionTypeTheConnectionsOwnTypeIsUsed() {
        var cache = NetworkManagerPropertyCache()
        cache.store(Self.managerProperties(primaryType: ""), at: Self.manager)
        cache.store(Self.connection(type: "802-3-ethernet", devices: []), at: Self.wifiConnection)
        #expect(cache.snapshot.primaryConnectionType == "802-3-ethernet")
    }

    @Test func numbersSentAsSignedIntegersAreReadAsTheirValues() {
        var cache = NetworkManagerPropertyCache()
        var properties = Self.managerProperties(primary: .root)
        properties["State"] = .int32(70)
        cache.store(properties, at: Self.manager)
        #expect(cache.snapshot.state == .connectedGlobal)
    }

    // MARK: NetworkManager's answers, as GetAll gives them (variants unwrapped)

    static func connectedOverWiFi() -> NetworkManagerPropertyCache {
        var cache = NetworkManagerPropertyCache()
        cache.store(managerProperties(), at: manager)
        cache.store(connection(type: "802-11-wireless", devices: [wifiDevice]), at: wifiConnection)
        cache.store(device(type: .wifi, interface: "wlan0", config: wifiConfig), at: wifiDevice)
        cache.store(["Gateway": .string("192.168.1.1"), "Addresses": .array(element: "au", [])], at: wifiConfig)
        cache.store(wireless(accessPoint: accessPoint), at: wifiDevice, interface: NetworkManagerNames.wirelessInterface)
        cache.store(["Strength": .byte(80)], at: accessPoint)
        return cache
    }

    static func managerProperties(
        state: UInt32 = 70, primary: ObjectPath = wifiConnection, primaryType: String = "802-11-wireless"
    ) -> [String: DBusValue] {
        [
            "State": .uint32(state), "Connectivity": .uint32(4), "Metered": .uint32(4), "Startup": .boolean(false),
            "PrimaryConnection": .objectPath(primary), "PrimaryConnectionType": .string(primaryType),
            "ActivatingConnection": .objectPath(.root), "NetworkingEnabled": .boolean(true),
        ]
    }

    static func connection(type: String, devices: [ObjectPath]) -> [String: DBusValue] {
        ["Type": .string(type), "Devices": .array(element: "o", devices.map { .objectPath($0) }), "State": .uint32(2)]
    }

    static func device(type: NMDeviceType, interface: String, config: ObjectPath) -> [String: DBusValue] {
        [
            "DeviceType": .uint32(type.rawValue), "Interface": .string(interface), "IpInterface": .string(interface),
            "Ip4Config": .objectPath(config), "State": .uint32(100),
        ]
    }

    static func wireless(accessPoint: ObjectPath) -> [String: DBusValue] {
        ["ActiveAccessPoint": .objectPath(accessPoint), "Bitrate": .uint32(54_000), "Mode": .uint32(2)]
    }

    /// org.freedesktop.DBus.Properties.PropertiesChanged(s interface, a{sv} changed, as invalidated).
    static func propertiesChanged(at path: ObjectPath, _ changed: [String: DBusValue]) -> Message {
        .signal(path: path, interface: .properties, member: "PropertiesChanged", body: [
            .string(NetworkManagerNames.managerInterface.rawValue),
            .dictionary(key: "s", value: "v", changed.sorted { $0.key < $1.key }.map {
                DictionaryEntry(.string($0.key), .variant($0.value))
            }),
            .array(element: "s", []),
        ])
    }
}
