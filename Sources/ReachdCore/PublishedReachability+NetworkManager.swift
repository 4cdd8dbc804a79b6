/// The NetworkManager backend's mapping (docs/mapping.md, "NetworkManager backend").
///
/// | NM state (connectivity) | flags |
/// |---|---|
/// | UNKNOWN, ASLEEP, DISCONNECTED, DISCONNECTING, CONNECTED_LOCAL | 0 |
/// | CONNECTING | ConnectionRequired (+ IsWWAN if the activating connection is gsm/cdma or on a modem) |
/// | CONNECTED_SITE or CONNECTED_GLOBAL, PORTAL | Reachable, ConnectionRequired, InterventionRequired + medium |
/// | CONNECTED_SITE or CONNECTED_GLOBAL, otherwise | Reachable + medium |
///
/// ```swift
/// let published = PublishedReachability(networkManager: NetworkManagerSnapshot(
///     state: .connectedGlobal, connectivity: .portal, primaryConnectionType: "802-11-wireless",
///     primaryDevices: [NetworkDevice(type: .wifi, interface: "wlan0")], primaryRouteHasGateway: true))
/// published.flags    // Reachable|ConnectionRequired|InterventionRequired
/// published.status   // .notReachable: a portal needs a login first
/// ```
extension PublishedReachability {
    /// The published values for a NetworkManager snapshot. Pure: same snapshot, same answer.
    ///
    /// Decisions where the design is silent:
    /// - A state this version does not know gives flags 0, like UNKNOWN: never claim reachability on a guess.
    ///   UNKNOWN itself is NotReachable, not Unknown: NetworkManager is there and answering.
    /// - CONNECTING carries only `ConnectionRequired` and `IsWWAN`, not the other medium bits:
    ///   the activating connection has no route yet, so `IsDirect` or `TransientConnection` would be guesses.
    /// - Connected with no primary connection reported (type `""`, no devices): Reachable, InterfaceType
    ///   `other`, Interface `""`.
    /// - `primaryRouteHasGateway == nil` (not known) adds no `IsDirect`.
    /// - Metered follows NetworkManager's value even when not reachable; only UNKNOWN (or a value this
    ///   version does not know) falls back to "true exactly when IsWWAN", as on the kernel backend.
    /// - `InterfaceType` and `Interface` describe the primary path only while `Reachable` is set,
    ///   so the portal case keeps them (the path exists, it just needs a login).
    public init(networkManager snapshot: NetworkManagerSnapshot) {
        let primary = NetworkManagerPath(
            connectionType: snapshot.primaryConnectionType, devices: snapshot.primaryDevices)

        var flags: ReachabilityFlags = []
        switch snapshot.state {
        case .connectedSite, .connectedGlobal:
            flags.insert(.reachable)
            if primary.isWWAN { flags.insert(.isWWAN) }
            if primary.isTransient { flags.insert(.transientConnection) }
            if snapshot.primaryRouteHasGateway == false { flags.insert(.isDirect) }
            if snapshot.connectivity == .portal {
                flags.formUnion([.connectionRequired, .interventionRequired])
            }
        case .connecting:
            flags.insert(.connectionRequired)
            let activating = NetworkManagerPath(
                connectionType: snapshot.activatingConnectionType, devices: snapshot.activatingDevices)
            if activating.isWWAN { flags.insert(.isWWAN) }
        default:
            break
        }

        let hasPath = flags.contains(.reachable)
        let metered: Bool = switch snapshot.metered {
        case .yes, .guessYes: true
        case .no, .guessNo: false
        default: flags.contains(.isWWAN)
        }

        let status = NetworkReachabilityStatus(flags: flags)
        let reason: UnsatisfiedReason = if status.isReachable {
            .none
        } else if flags.contains(.interventionRequired) {
            .portal
        } else {
            switch snapshot.state {
            case .asleep: .disabled
            case .connecting, .disconnecting: .connecting
            default: .noRoute
            }
        }
        self.init(
            status: status,
            flags: flags,
            interfaceType: hasPath ? primary.interfaceType : .none,
            interface: hasPath ? snapshot.primaryDevices.first?.publishedInterface ?? "" : "",
            metered: metered,
            connectivity: Connectivity(snapshot.connectivity),
            backend: .networkmanager,
            source: .networkManager,
            unsatisfiedReason: reason
        )
    }
}
