/// What the NetworkManager backend reads from NetworkManager, and nothing more: the input of
/// `PublishedReachability(networkManager:)`.
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

    /// The manager's `ConnectivityCheckEnabled` and `ConnectivityCheckAvailable`: with either
    /// false, NetworkManager fakes FULL whenever there is a default route.
    public var connectivityCheckEnabled: Bool = false
    public var connectivityCheckAvailable: Bool = false

    /// NetworkManager's connectivity check runs, so its `full` was checked.
    public var connectivityCheckIsLive: Bool { connectivityCheckEnabled && connectivityCheckAvailable }

    public init(
        state: NMState,
        connectivity: NMConnectivityState = .unknown,
        metered: NMMetered = .unknown,
        primaryConnectionType: String = "",
        primaryDevices: [NetworkDevice] = [],
        primaryRouteHasGateway: Bool? = nil,
        activatingConnectionType: String = "",
        activatingDevices: [NetworkDevice] = []
    ) {
        self.state = state
        self.connectivity = connectivity
        self.metered = metered
        self.primaryConnectionType = primaryConnectionType
        self.primaryDevices = primaryDevices
        self.primaryRouteHasGateway = primaryRouteHasGateway
        self.activatingConnectionType = activatingConnectionType
        self.activatingDevices = activatingDevices
    }
}
