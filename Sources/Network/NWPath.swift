/// What a monitor knows about the network: Apple's `NWPath`, as reachd answers it (the same
/// answer as the library's `NetworkPath`, in Apple's names).
///
/// ```swift
/// monitor.pathUpdateHandler = { path in
///     guard path.status == .satisfied else { return showOffline() }
///     if path.isExpensive || path.usesInterfaceType(.cellular) { pauseBackups() }
/// }
/// ```
public struct NWPath: Sendable, Equatable, CustomDebugStringConvertible {
    /// Whether connections can use the path.
    public enum Status: Hashable, Sendable {
        /// Connections can use the path.
        case satisfied
        /// No path.
        case unsatisfied
        /// Not now, but a connection would bring one up (NetworkManager activating on demand).
        case requiresConnection
    }

    /// Why a path is unsatisfied, in Apple's words. Linux denies no app cellular or Wi-Fi:
    /// reachd reports `.notAvailable`, and says why in the library's `NetworkPath.unsatisfiedReason`.
    public enum UnsatisfiedReason: Hashable, Sendable {
        case notAvailable
        case cellularDenied
        case wifiDenied
        case localNetworkDenied
        case vpnInactive
    }

    public let status: Status
    /// The interfaces that could carry a path, the one in use first; a filtered monitor lists only
    /// those it accepts.
    public let availableInterfaces: [NWInterface]
    /// The connection costs by volume: NetworkManager's `Metered`, or a modem.
    public let isExpensive: Bool
    /// Always false: Apple's Low Data Mode is the user's choice per network, and what reachd
    /// publishes does not tell a metered setting the user made (NetworkManager's `metered=yes`)
    /// from a guessed one (every modem); both make `isExpensive`.
    public let isConstrained: Bool
    /// Always false (iOS 26): Linux has no interface the system holds back as ultra-constrained
    /// (Apple's satellite links, used only by apps that opt in).
    public let isUltraConstrained: Bool
    /// How good the link under the path is (iOS 26), from the library's `NetworkPath.linkQuality`:
    /// `.unknown` where there is no measurement. To tune starting values, never to gate a connection.
    public let linkQuality: LinkQuality
    public let supportsIPv4: Bool
    public let supportsIPv6: Bool
    /// A configured DNS server has a path.
    public let supportsDNS: Bool
    /// nil: a monitor's path belongs to no connection, as on Apple's systems.
    public let localEndpoint: NWEndpoint?
    /// nil: a monitor's path belongs to no connection, as on Apple's systems.
    public let remoteEndpoint: NWEndpoint?
    /// `.notAvailable` on Linux, satisfied or not (as Apple's is when it gives no reason).
    public let unsatisfiedReason: UnsatisfiedReason
    /// The path's next hops, the deciding one first: `.hostPort(host: .ipv4(…), port: .any)`.
    public let gateways: [NWEndpoint]
    /// The interface types the path uses (under a VPN, the tunnel's `.other` and its medium).
    private let usedInterfaceTypes: Set<NWInterface.InterfaceType>

    init(status: Status, availableInterfaces: [NWInterface], isExpensive: Bool, isConstrained: Bool,
         linkQuality: LinkQuality, supportsIPv4: Bool, supportsIPv6: Bool, supportsDNS: Bool,
         gateways: [NWEndpoint], usedInterfaceTypes: Set<NWInterface.InterfaceType>) {
        self.status = status
        self.availableInterfaces = availableInterfaces
        self.isExpensive = isExpensive
        self.isConstrained = isConstrained
        isUltraConstrained = false
        self.linkQuality = linkQuality
        self.supportsIPv4 = supportsIPv4
        self.supportsIPv6 = supportsIPv6
        self.supportsDNS = supportsDNS
        localEndpoint = nil
        remoteEndpoint = nil
        unsatisfiedReason = .notAvailable
        self.gateways = gateways
        self.usedInterfaceTypes = usedInterfaceTypes
    }

    /// Whether the path uses an interface of `type`.
    public func usesInterfaceType(_ type: NWInterface.InterfaceType) -> Bool {
        usedInterfaceTypes.contains(type)
    }

    public var debugDescription: String {
        var parts = ["\(status)"]
        if !availableInterfaces.isEmpty { parts.append("interface: \(availableInterfaces.map(\.name).joined(separator: " "))") }
        if supportsIPv4 { parts.append("ipv4") }
        if supportsIPv6 { parts.append("ipv6") }
        if supportsDNS { parts.append("dns") }
        if isExpensive { parts.append("expensive") }
        if isConstrained { parts.append("constrained") }
        if linkQuality != .unknown { parts.append("link quality: \(linkQuality)") }
        return parts.joined(separator: ", ")
    }
}
