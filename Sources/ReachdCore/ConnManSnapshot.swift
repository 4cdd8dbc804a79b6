/// What ConnMan says (contract 5, §5.2): the manager's `State` and `OfflineMode`, and its
/// services in its own order, the first being the default service when one is connected. A back
/// end reads it from `net.connman`; the meaning is `ReachabilityDecision`'s (docs/mapping.md, "ConnMan").
///
/// ```swift
/// let snapshot = ConnManSnapshot(state: "online", services: [
///     ConnManService(path: "/net/connman/service/ethernet_1", type: "ethernet", state: "online", interface: "eth0")])
/// snapshot.isConnected              // true
/// snapshot.defaultService?.medium   // .ethernet
/// ```
public struct ConnManSnapshot: Sendable, Hashable {
    /// The manager's `State`: `offline`, `idle`, `ready`, `online`.
    public var state: String
    /// The manager's `OfflineMode` (ConnMan's "flight mode": every technology is off).
    public var offlineMode: Bool
    /// Every service, in ConnMan's order (`GetServices`, then `ServicesChanged`).
    public var services: [ConnManService]

    public init(state: String, offlineMode: Bool = false, services: [ConnManService] = []) {
        self.state = state
        self.offlineMode = offlineMode
        self.services = services
    }

    /// The manager says `ready` or `online`, and a service is connected. ConnMan signals a
    /// service's `State` before the manager's: a manager still `online` whose services have all
    /// gone `idle` is on its way down, and is not taken at its word.
    public var isConnected: Bool { (state == "ready" || state == "online") && defaultService != nil }

    /// ConnMan's own check passed (`online`): connectivity is full by a real check.
    public var isOnline: Bool { state == "online" && isConnected }

    /// The default service: ConnMan sorts connected services first, the default at the head. Its
    /// new order comes in `ServicesChanged` up to 100 ms after a service's `State` (connmand
    /// batches it), so the first connected service in the order known stands for it meanwhile.
    /// nil when no service is connected.
    public var defaultService: ConnManService? { services.first { $0.isConnected } }

    /// The first connected service under the default one when that is a VPN: its underlay.
    public var underlyingService: ConnManService? {
        guard let first = defaultService, first.medium == .tunnel else { return nil }
        return services.dropFirst().first { $0.isConnected && $0.medium != .tunnel }
    }

    /// The service whose link is `interface`, nil when ConnMan has none there.
    public func service(interface: String) -> ConnManService? {
        guard !interface.isEmpty else { return nil }
        return services.first { $0.interface == interface }
    }

    /// A service ConnMan is bringing up, when none is connected.
    public var connectingService: ConnManService? { services.first { $0.isConnecting } }

    /// The service in `failure` when it is the only one there is to connect: its `Error` explains
    /// why nothing is connected.
    public var failedService: ConnManService? {
        guard !services.contains(where: { $0.isConnected || $0.isConnecting }) else { return nil }
        return services.first { $0.state == "failure" }
    }
}
