/// The medium of the primary path: the D-Bus `InterfaceType` property (`s`, the raw value).
///
/// Finer than `NetworkReachabilityStatus`, which, like AFNetworking, calls everything that is not
/// cellular "WiFi".
///
/// ```swift
/// InterfaceType(.tunnel)              // .vpn
/// InterfaceType.ethernet.rawValue     // "ethernet"
/// ```
public enum InterfaceType: String, Sendable, CaseIterable {
    case wifi
    case wwan
    case ethernet
    /// VPN, WireGuard, tun: the path goes through a tunnel, whatever carries the tunnel.
    case vpn
    case bluetooth
    /// Reachable over a medium none of the others describe (InfiniBand, a bridge-less virtual link, …).
    case other
    /// Not reachable: there is no primary path.
    case none

    /// The interface type the kernel backend publishes for a link's medium.
    /// A tunnel is `vpn`, as NetworkManager's view names it; loopback is `other`.
    public init(_ medium: LinkMedium) {
        switch medium {
        case .wifi: self = .wifi
        case .wwan: self = .wwan
        case .ethernet: self = .ethernet
        case .bluetooth: self = .bluetooth
        case .tunnel: self = .vpn
        case .loopback, .other: self = .other
        }
    }
}
