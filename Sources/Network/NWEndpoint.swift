/// A local or remote endpoint: Apple's `NWEndpoint`, as far as a path's `gateways` and code that
/// switches over endpoints need it. A gateway is `.hostPort(host: .ipv4(…) or .ipv6(…), port: .any)`.
///
/// ```swift
/// for case .hostPort(let host, _) in path.gateways { print("gateway", host) }
/// ```
public enum NWEndpoint: Hashable, Sendable, CustomDebugStringConvertible {
    case hostPort(host: NWEndpoint.Host, port: NWEndpoint.Port)
    case service(name: String, type: String, domain: String, interface: NWInterface?)
    case unix(path: String)

    /// The interface the endpoint is scoped to, if any.
    public var interface: NWInterface? {
        switch self {
        case .hostPort(let host, _): host.interface
        case .service(_, _, _, let interface): interface
        case .unix: nil
        }
    }

    public var debugDescription: String {
        switch self {
        case .hostPort(let host, let port):
            if case .ipv6 = host { "[\(host.debugDescription)]:\(port.rawValue)" } else { "\(host.debugDescription):\(port.rawValue)" }
        case .service(let name, let type, let domain, _): "\(name).\(type)\(domain)"
        case .unix(let path): path
        }
    }
}
