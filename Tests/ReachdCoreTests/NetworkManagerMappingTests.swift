import ReachdCore
import Testing

/// docs/mapping.md's "NetworkManager backend" table, row by row.
@Suite("NetworkManager snapshot → published values")
struct NetworkManagerMappingTests {
    static let allConnectivity = NMConnectivityState.allKnown + [NMConnectivityState(rawValue: 9)]

    // MARK: States without a usable path

    @Test("no path: flags 0, Not Reachable (never Unknown)", arguments: [
        NMState.unknown, .asleep, .disconnected, .disconnecting, .connectedLocal, NMState(rawValue: 45),
    ], allConnectivity)
    func statesWithoutAPathPublishNoFlags(state: NMState, connectivity: NMConnectivityState) {
        // A primary connection is present to show it is ignored in these states.
        let published = PublishedReachability(networkManager: NetworkManagerSnapshot(
            state: state, connectivity: connectivity, primaryConnectionType: "802-11-wireless",
            primaryDevices: [Devices.wlan0], primaryRouteHasGateway: false))
        #expect(published.flags == [])
        #expect(published.status == .notReachable)
        #expect(published.interfaceType == .none)
        #expect(published.interface == "")
        #expect(published.backend == .networkmanager)
    }

    // MARK: Connected states × connectivity

    @Test("connected: Reachable; a portal adds ConnectionRequired and InterventionRequired", arguments: [
        (NMState.connectedSite, NMConnectivityState.unknown, ReachabilityFlags.reachable,
         NetworkReachabilityStatus.reachableViaWiFi, Connectivity.unknown),
        (.connectedSite, .none, [.reachable], .reachableViaWiFi, .none),
        (.connectedSite, .portal, [.reachable, .connectionRequired, .interventionRequired], .notReachable, .portal),
        (.connectedSite, .limited, [.reachable], .reachableViaWiFi, .limited),
        (.connectedSite, .full, [.reachable], .reachableViaWiFi, .full),
        (.connectedGlobal, .unknown, [.reachable], .reachableViaWiFi, .unknown),
        (.connectedGlobal, .none, [.reachable], .reachableViaWiFi, .none),
        (.connectedGlobal, .portal, [.reachable, .connectionRequired, .interventionRequired], .notReachable, .portal),
        (.connectedGlobal, .limited, [.reachable], .reachableViaWiFi, .limited),
        (.connectedGlobal, .full, [.reachable], .reachableViaWiFi, .full),
    ] as [(NMState, NMConnectivityState, ReachabilityFlags, NetworkReachabilityStatus, Connectivity)])
    func connectedStatesByConnectivity(
        state: NMState, connectivity: NMConnectivityState, flags: ReachabilityFlags,
        status: NetworkReachabilityStatus, published: Connectivity
    ) {
        let result = PublishedReachability(networkManager: NetworkManagerSnapshot(
            state: state, connectivity: connectivity, primaryConnectionType: "802-11-wireless",
            primaryDevices: [Devices.wlan0], primaryRouteHasGateway: true))
        #expect(result.flags == flags)
        #expect(result.status == status)
        #expect(result.connectivity == published)
        #expect(result.interfaceType == .wifi)
        #expect(result.interface == "wlan0")
        #expect(result.backend == .networkmanager)
    }

    @Test func portalReportsInterventionRequired() {
        let result = PublishedReachability(networkManager: NetworkManagerSnapshot(
            state: .connectedGlobal, connectivity: .portal, metered: .no, primaryConnectionType: "802-11-wireless",
            primaryDevices: [Devices.wlan0], primaryRouteHasGateway: true))
        #expect(result == PublishedReachability(
            status: .notReachable, flags: [.reachable, .connectionRequired, .interventionRequired],
            interfaceType: .wifi, interface: "wlan0", metered: false, connectivity: .portal,
            backend: .networkmanager, unsatisfiedReason: .portal))
        #expect(result.statusString == "Not Reachable")
    }

    // MARK: Media

    struct MediumRow: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let type: String
        let devices: [NetworkDevice]
        var gateway: Bool? = true
        let flags: ReachabilityFlags
        let status: NetworkReachabilityStatus
        let interfaceType: InterfaceType
        let interface: String
        /// With NetworkManager's Metered UNKNOWN: true exactly on WWAN.
        let metered: Bool
    }

    static let media: [MediumRow] = [
        MediumRow(testDescription: "wifi", type: "802-11-wireless", devices: [Devices.wlan0],
                  flags: [.reachable], status: .reachableViaWiFi, interfaceType: .wifi, interface: "wlan0",
                  metered: false),
        MediumRow(testDescription: "ethernet", type: "802-3-ethernet", devices: [Devices.eth0],
                  flags: [.reachable], status: .reachableViaWiFi, interfaceType: .ethernet, interface: "eth0",
                  metered: false),
        MediumRow(testDescription: "veth", type: "802-3-ethernet", devices: [Devices.veth0],
                  flags: [.reachable], status: .reachableViaWiFi, interfaceType: .ethernet, interface: "veth0",
                  metered: false),
        MediumRow(testDescription: "gsm", type: "gsm", devices: [Devices.modem],
                  flags: [.reachable, .isWWAN], status: .reachableViaWWAN, interfaceType: .wwan, interface: "wwan0",
                  metered: true),
        MediumRow(testDescription: "cdma", type: "cdma", devices: [Devices.modem],
                  flags: [.reachable, .isWWAN], status: .reachableViaWWAN, interfaceType: .wwan, interface: "wwan0",
                  metered: true),
        MediumRow(testDescription: "modem device, connection type not reported", type: "", devices: [Devices.modem],
                  flags: [.reachable, .isWWAN], status: .reachableViaWWAN, interfaceType: .wwan, interface: "wwan0",
                  metered: true),
        MediumRow(testDescription: "gsm, devices not reported", type: "gsm", devices: [],
                  flags: [.reachable, .isWWAN], status: .reachableViaWWAN, interfaceType: .wwan, interface: "",
                  metered: true),
        MediumRow(testDescription: "cdma, devices not reported", type: "cdma", devices: [],
                  flags: [.reachable, .isWWAN], status: .reachableViaWWAN, interfaceType: .wwan, interface: "",
                  metered: true),
        MediumRow(testDescription: "serial modem: no IP interface, so the port", type: "gsm",
                  devices: [Devices.serialModem],
                  flags: [.reachable, .isWWAN], status: .reachableViaWWAN, interfaceType: .wwan,
                  interface: "ttyUSB2", metered: true),
        MediumRow(testDescription: "vpn over wifi", type: "vpn", devices: [Devices.wlan0],
                  flags: [.reachable, .transientConnection], status: .reachableViaWiFi, interfaceType: .vpn,
                  interface: "wlan0", metered: false),
        MediumRow(testDescription: "vpn over gsm", type: "vpn", devices: [Devices.modem],
                  flags: [.reachable, .transientConnection, .isWWAN], status: .reachableViaWWAN,
                  interfaceType: .vpn, interface: "wwan0", metered: true),
        MediumRow(testDescription: "wireguard", type: "wireguard", devices: [Devices.wg0],
                  flags: [.reachable, .transientConnection], status: .reachableViaWiFi, interfaceType: .vpn,
                  interface: "wg0", metered: false),
        MediumRow(testDescription: "tun device", type: "tun", devices: [Devices.tun0],
                  flags: [.reachable, .transientConnection], status: .reachableViaWiFi, interfaceType: .vpn,
                  interface: "tun0", metered: false),
        MediumRow(testDescription: "pppoe on the ethernet device", type: "pppoe", devices: [Devices.ethPPPoE],
                  flags: [.reachable, .transientConnection], status: .reachableViaWiFi, interfaceType: .ethernet,
                  interface: "ppp0", metered: false),
        MediumRow(testDescription: "pppoe on a PPP device", type: "pppoe", devices: [Devices.ppp0],
                  flags: [.reachable, .transientConnection], status: .reachableViaWiFi, interfaceType: .ethernet,
                  interface: "ppp0", metered: false),
        MediumRow(testDescription: "bluetooth", type: "bluetooth", devices: [Devices.bluetooth],
                  flags: [.reachable], status: .reachableViaWiFi, interfaceType: .bluetooth, interface: "bnep0",
                  metered: false),
        MediumRow(testDescription: "infiniband", type: "infiniband", devices: [Devices.ib0],
                  flags: [.reachable], status: .reachableViaWiFi, interfaceType: .other, interface: "ib0",
                  metered: false),
        // The device types alone decide when the connection type is not reported.
        MediumRow(testDescription: "Wi-Fi device only", type: "", devices: [Devices.wlan0],
                  flags: [.reachable], status: .reachableViaWiFi, interfaceType: .wifi, interface: "wlan0",
                  metered: false),
        MediumRow(testDescription: "ethernet device only", type: "", devices: [Devices.eth0],
                  flags: [.reachable], status: .reachableViaWiFi, interfaceType: .ethernet, interface: "eth0",
                  metered: false),
        MediumRow(testDescription: "veth device only", type: "", devices: [Devices.veth0],
                  flags: [.reachable], status: .reachableViaWiFi, interfaceType: .ethernet, interface: "veth0",
                  metered: false),
        MediumRow(testDescription: "Bluetooth device only", type: "", devices: [Devices.bluetooth],
                  flags: [.reachable], status: .reachableViaWiFi, interfaceType: .bluetooth, interface: "bnep0",
                  metered: false),
        MediumRow(testDescription: "WireGuard device only", type: "", devices: [Devices.wg0],
                  flags: [.reachable, .transientConnection], status: .reachableViaWiFi, interfaceType: .vpn,
                  interface: "wg0", metered: false),
        MediumRow(testDescription: "PPP device only", type: "", devices: [Devices.ppp0],
                  flags: [.reachable, .transientConnection], status: .reachableViaWiFi, interfaceType: .other,
                  interface: "ppp0", metered: false),
        MediumRow(testDescription: "no primary connection reported", type: "", devices: [],
                  flags: [.reachable], status: .reachableViaWiFi, interfaceType: .other, interface: "",
                  metered: false),
        MediumRow(testDescription: "ethernet, no gateway", type: "802-3-ethernet", devices: [Devices.eth0],
                  gateway: false,
                  flags: [.reachable, .isDirect], status: .reachableViaWiFi, interfaceType: .ethernet,
                  interface: "eth0", metered: false),
        MediumRow(testDescription: "ethernet, gateway not known", type: "802-3-ethernet", devices: [Devices.eth0],
                  gateway: nil,
                  flags: [.reachable], status: .reachableViaWiFi, interfaceType: .ethernet,
                  interface: "eth0", metered: false),
        MediumRow(testDescription: "gsm, no gateway", type: "gsm", devices: [Devices.modem], gateway: false,
                  flags: [.reachable, .isWWAN, .isDirect], status: .reachableViaWWAN, interfaceType: .wwan,
                  interface: "wwan0", metered: true),
        MediumRow(testDescription: "wireguard, no gateway", type: "wireguard", devices: [Devices.wg0],
                  gateway: false,
                  flags: [.reachable, .transientConnection, .isDirect], status: .reachableViaWiFi,
                  interfaceType: .vpn, interface: "wg0", metered: false),
    ]

    @Test("medium bits, InterfaceType and Interface from the primary connection", arguments: media)
    func mediumFromPrimaryConnection(row: MediumRow) {
        let result = PublishedReachability(networkManager: NetworkManagerSnapshot(
            state: .connectedGlobal, connectivity: .full, metered: .unknown,
            primaryConnectionType: row.type, primaryDevices: row.devices, primaryRouteHasGateway: row.gateway))
        #expect(result == PublishedReachability(
            status: row.status, flags: row.flags, interfaceType: row.interfaceType, interface: row.interface,
            metered: row.metered, connectivity: .full, backend: .networkmanager))
    }

    @Test("a portal keeps the medium and the path, and blocks the status", arguments: media)
    func portalOnEveryMedium(row: MediumRow) {
        let result = PublishedReachability(networkManager: NetworkManagerSnapshot(
            state: .connectedSite, connectivity: .portal, metered: .unknown,
            primaryConnectionType: row.type, primaryDevices: row.devices, primaryRouteHasGateway: row.gateway))
        #expect(result.flags == row.flags.union([.connectionRequired, .interventionRequired]))
        #expect(result.status == .notReachable)
        #expect(result.interfaceType == row.interfaceType)
        #expect(result.interface == row.interface)
        #expect(result.metered == row.metered)
    }

    // MARK: Connecting

    @Test("connecting: ConnectionRequired, plus IsWWAN on a modem", arguments: [
        ("802-11-wireless", [Devices.wlan0], ReachabilityFlags.connectionRequired, false),
        ("802-3-ethernet", [Devices.eth0], [.connectionRequired], false),
        ("gsm", [Devices.modem], [.connectionRequired, .isWWAN], true),
        ("cdma", [Devices.modem], [.connectionRequired, .isWWAN], true),
        ("gsm", [], [.connectionRequired, .isWWAN], true),
        ("cdma", [], [.connectionRequired, .isWWAN], true),
        ("", [Devices.modem], [.connectionRequired, .isWWAN], true),
        ("", [], [.connectionRequired], false),
        ("vpn", [Devices.wlan0], [.connectionRequired], false),
        ("wireguard", [Devices.wg0], [.connectionRequired], false),
    ] as [(String, [NetworkDevice], ReachabilityFlags, Bool)])
    func connectingRequiresAConnection(
        type: String, devices: [NetworkDevice], flags: ReachabilityFlags, metered: Bool
    ) {
        let result = PublishedReachability(networkManager: NetworkManagerSnapshot(
            state: .connecting, connectivity: .none, metered: .unknown,
            activatingConnectionType: type, activatingDevices: devices))
        #expect(result == PublishedReachability(
            status: .notReachable, flags: flags, interfaceType: .none, interface: "", metered: metered,
            connectivity: .none, backend: .networkmanager, unsatisfiedReason: .connecting))
    }

    @Test func connectingIgnoresThePrimaryConnectionsMedium() {
        let result = PublishedReachability(networkManager: NetworkManagerSnapshot(
            state: .connecting, primaryConnectionType: "gsm", primaryDevices: [Devices.modem],
            activatingConnectionType: "802-11-wireless", activatingDevices: [Devices.wlan0]))
        #expect(result.flags == [.connectionRequired])
    }

    // MARK: Metered

    @Test("metered: NetworkManager's answer; unknown means true exactly on WWAN", arguments: [
        ("802-11-wireless", [Devices.wlan0], NMMetered.yes, true),
        ("802-11-wireless", [Devices.wlan0], .guessYes, true),
        ("802-11-wireless", [Devices.wlan0], .no, false),
        ("802-11-wireless", [Devices.wlan0], .guessNo, false),
        ("802-11-wireless", [Devices.wlan0], .unknown, false),
        ("802-11-wireless", [Devices.wlan0], NMMetered(rawValue: 7), false),
        ("gsm", [Devices.modem], .yes, true),
        ("gsm", [Devices.modem], .guessYes, true),
        ("gsm", [Devices.modem], .no, false),
        ("gsm", [Devices.modem], .guessNo, false),
        ("gsm", [Devices.modem], .unknown, true),
        ("gsm", [Devices.modem], NMMetered(rawValue: 7), true),
        ("vpn", [Devices.modem], .unknown, true),
        ("802-3-ethernet", [Devices.eth0], .guessYes, true),
    ] as [(String, [NetworkDevice], NMMetered, Bool)])
    func meteredFollowsNetworkManager(type: String, devices: [NetworkDevice], metered: NMMetered, expected: Bool) {
        let result = PublishedReachability(networkManager: NetworkManagerSnapshot(
            state: .connectedGlobal, connectivity: .full, metered: metered,
            primaryConnectionType: type, primaryDevices: devices, primaryRouteHasGateway: true))
        #expect(result.metered == expected)
    }

    @Test func meteredWhileDisconnectedIsNetworkManagersWord() {
        #expect(PublishedReachability(networkManager: NetworkManagerSnapshot(state: .disconnected)).metered == false)
        #expect(PublishedReachability(networkManager: NetworkManagerSnapshot(state: .disconnected, metered: .yes))
            .metered == true)
    }

    @Test func interfaceIsTheFirstPrimaryDevice() {
        let result = PublishedReachability(networkManager: NetworkManagerSnapshot(
            state: .connectedGlobal, primaryConnectionType: "802-3-ethernet",
            primaryDevices: [Devices.eth0, NetworkDevice(type: .ethernet, interface: "eth1", ipInterface: "eth1")],
            primaryRouteHasGateway: true))
        #expect(result.interface == "eth0")
    }
}
