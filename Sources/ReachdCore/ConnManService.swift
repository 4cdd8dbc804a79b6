/// One ConnMan service (`net.connman.Service`) as reachd reads it: the entries of
/// `GetServices()` and the service's `PropertyChanged` (contract 5, §5.2; ConnMan's
/// `doc/service-api.txt`). Only what the mapping uses is kept.
///
/// ```swift
/// let service = ConnManService(path: "/net/connman/service/cellular_1", type: "cellular",
///                              state: "online", roaming: true, interface: "wwan0")
/// service.medium       // .wwan
/// service.isMetered    // true
/// ```
public struct ConnManService: Sendable, Hashable {
    /// The service's object path (ConnMan's identity for it).
    public var path: String
    /// `Type`: `ethernet`, `wifi`, `cellular`, `bluetooth`, `vpn`, `gadget`, `p2p`, `wireguard`
    /// (ConnMan's VPN plugins), `""` when not yet known.
    public var type: String
    /// `State`: `idle`, `failure`, `association`, `configuration`, `ready`, `disconnect`, `online`.
    public var state: String
    /// `Error`: why the service is in `failure` (`connect-failed`, `dhcp-failed`, …), `""` otherwise.
    public var error: String
    /// `Roaming`: a cellular service away from its home network.
    public var roaming: Bool
    /// `Ethernet.Interface`: the kernel's name of the service's link, `""` when ConnMan gives none.
    public var interface: String
    /// `IPv4.Method` (`dhcp`, `manual`, `off`, `fixed`) and `IPv4.Address` as ConnMan reports them.
    public var ipv4Method: String
    public var ipv4Address: String
    /// `IPv6.Address`.
    public var ipv6Address: String
    /// `Strength` (0–100): a Wi-Fi or cellular service's signal; nil for other services.
    public var strength: UInt8?

    public init(path: String, type: String = "", state: String = "idle", error: String = "", roaming: Bool = false,
                interface: String = "", ipv4Method: String = "", ipv4Address: String = "", ipv6Address: String = "",
                strength: UInt8? = nil) {
        self.path = path
        self.type = type
        self.state = state
        self.error = error
        self.roaming = roaming
        self.interface = interface
        self.ipv4Method = ipv4Method
        self.ipv4Address = ipv4Address
        self.ipv6Address = ipv6Address
        self.strength = strength.map { min($0, 100) }
    }

    /// Connected and configured (`ready`) or past ConnMan's own online check (`online`).
    public var isConnected: Bool { state == "ready" || state == "online" }

    /// ConnMan is bringing the service up (`association`, `configuration`).
    public var isConnecting: Bool { state == "association" || state == "configuration" }

    /// The medium ConnMan's `Type` names: `cellular` a modem, `vpn` (and `wireguard`) a tunnel,
    /// `gadget` (USB networking) wired; nil for a type that says nothing the kernel cannot.
    public var medium: LinkMedium? {
        switch type {
        case "cellular": .wwan
        case "wifi": .wifi
        case "ethernet", "gadget": .ethernet
        case "bluetooth": .bluetooth
        case "vpn", "wireguard": .tunnel
        default: nil
        }
    }

    /// A cellular service is metered, and so is any roaming one: ConnMan has no other word on cost.
    public var isMetered: Bool { type == "cellular" || roaming }

    /// The service's IPv4 address is IPv4 link-local (169.254/16): ConnMan's fallback when DHCP
    /// gets no answer. Such an address reaches the link, never the Internet.
    public var hasIPv4LinkLocalOnly: Bool {
        ipv4Address.hasPrefix("169.254.") && ipv6Address.isEmpty
    }
}
