/// What the NetworkManager backend reads from NetworkManager, and nothing more: the input of
/// `PublishedReachability(networkManager:)` and, with the kernel's paths, of `ReachabilityDecision`.
///
/// Connection types are NetworkManager's setting names (`PrimaryConnectionType`, an active connection's
/// `Type`): "802-11-wireless", "802-3-ethernet", "gsm", "cdma", "vpn", "wireguard", "pppoe",
/// "bluetooth", …, and `""` when there is none.
///
/// ```swift
/// let snapshot = NetworkManagerSnapshot(
///     state: .connectedGlobal, connectivity: .full, metered: .guessNo,
///     primaryConnectionType: "802-11-wireless",
///     primaryDevices: [NetworkDevice(type: .wifi, interface: "wlan0", ipInterface: "wlan0")],
///     primaryRouteHasGateway: true)
/// PublishedReachability(networkManager: snapshot).flags   // Reachable
/// ```
public struct NetworkManagerSnapshot: Sendable, Hashable {
    /// The manager's `State`.
    public var state: NMState
    /// The manager's `Connectivity`.
    public var connectivity: NMConnectivityState
    /// The manager's `Metered`.
    public var metered: NMMetered
    /// The manager's `PrimaryConnectionType`.
    public var primaryConnectionType: String
    /// The `Devices` of the manager's `PrimaryConnection`, in NetworkManager's order.
    public var primaryDevices: [NetworkDevice]
    /// Whether the primary connection's default route has a gateway; `nil` when not known.
    public var primaryRouteHasGateway: Bool?
    /// The `Type` of the manager's `ActivatingConnection`, `""` when none.
    public var activatingConnectionType: String
    /// The `Devices` of the manager's `ActivatingConnection`.
    public var activatingDevices: [NetworkDevice]
    /// The manager's `Startup`: NetworkManager is still activating what it activates at start.
    public var startup: Bool
    /// The manager's `ConnectivityCheckEnabled` and `ConnectivityCheckAvailable`: only with both
    /// does a connectivity value come from a real check (with checking off, NetworkManager reports
    /// FULL for any activated device with a default route).
    public var connectivityCheckEnabled: Bool
    public var connectivityCheckAvailable: Bool
    /// Every device in the manager's `Devices`, in NetworkManager's order.
    public var devices: [NetworkManagerDevice]
    /// A VPN active connection (`Vpn` true) is still activating: it installs its routes and rules
    /// step by step, so the kernel's path says nothing yet.
    public var vpnActivating: Bool

    public init(
        state: NMState,
        connectivity: NMConnectivityState = .unknown,
        metered: NMMetered = .unknown,
        primaryConnectionType: String = "",
        primaryDevices: [NetworkDevice] = [],
        primaryRouteHasGateway: Bool? = nil,
        activatingConnectionType: String = "",
        activatingDevices: [NetworkDevice] = [],
        startup: Bool = false,
        connectivityCheckEnabled: Bool = false,
        connectivityCheckAvailable: Bool = false,
        devices: [NetworkManagerDevice] = [],
        vpnActivating: Bool = false
    ) {
        self.state = state
        self.connectivity = connectivity
        self.metered = metered
        self.primaryConnectionType = primaryConnectionType
        self.primaryDevices = primaryDevices
        self.primaryRouteHasGateway = primaryRouteHasGateway
        self.activatingConnectionType = activatingConnectionType
        self.activatingDevices = activatingDevices
        self.startup = startup
        self.connectivityCheckEnabled = connectivityCheckEnabled
        self.connectivityCheckAvailable = connectivityCheckAvailable
        self.devices = devices
        self.vpnActivating = vpnActivating
    }

    /// The connectivity values are from a real check (`ConnectivityCheckEnabled` and `…Available`).
    public var connectivityCheckIsLive: Bool { connectivityCheckEnabled && connectivityCheckAvailable }

    /// The device whose kernel name is `name`, nil when NetworkManager does not know that link.
    public func device(kernelName name: String) -> NetworkManagerDevice? {
        devices.first { $0.kernelName == name } ?? devices.first { $0.interface == name }
    }
}
