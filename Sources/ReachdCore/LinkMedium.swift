/// The medium of a kernel link, as the kernel backend and host monitors classify it from sysfs.
///
/// ```swift
/// LinkMedium(LinkFacts(name: "wwan0", devtype: "wwan", arphrdType: LinkFacts.arphrdNone))   // .wwan
/// LinkMedium.tunnel.flags                                                                  // TransientConnection
/// ```
public enum LinkMedium: Sendable, Hashable, CaseIterable {
    case wifi
    case wwan
    case ethernet
    case bluetooth
    /// PPP, tun, WireGuard: published as `TransientConnection` and InterfaceType `vpn`.
    case tunnel
    case loopback
    case other

    /// Classifies a link, first match wins:
    ///
    /// | facts | medium |
    /// |---|---|
    /// | type 772 (loopback) | loopback |
    /// | `wireless/` or `phy80211/` present, or DEVTYPE=wlan | wifi |
    /// | DEVTYPE=wwan, or type 519 (raw IP) | wwan |
    /// | DEVTYPE=wireguard, type 512 (PPP) or 65534 (none: tun) | tunnel |
    /// | DEVTYPE=bluetooth | bluetooth |
    /// | type 1 (Ethernet: also bridges, bonds, VLANs, veth) | ethernet |
    /// | anything else (InfiniBand, GRE, SIT, CAN, …) | other |
    ///
    /// Wi-Fi and WWAN come before the link types because they share them with other media
    /// (a Wi-Fi card is type 1, a QMI modem in raw-IP mode is type 65534 like tun).
    /// IP-in-IP and GRE tunnels are `other`, not `tunnel`: NetworkManager's view does not count
    /// IP_TUNNEL devices as transient either, and the two backends should agree.
    public init(_ facts: LinkFacts) {
        if facts.arphrdType == LinkFacts.arphrdLoopback {
            self = .loopback
        } else if facts.hasWirelessDir || facts.hasPhy80211 || facts.devtype == "wlan" {
            self = .wifi
        } else if facts.devtype == "wwan" || facts.arphrdType == LinkFacts.arphrdRawIP {
            self = .wwan
        } else if facts.devtype == "wireguard" || facts.arphrdType == LinkFacts.arphrdPPP
                    || facts.arphrdType == LinkFacts.arphrdNone {
            self = .tunnel
        } else if facts.devtype == "bluetooth" {
            self = .bluetooth
        } else if facts.arphrdType == LinkFacts.arphrdEther {
            self = .ethernet
        } else {
            self = .other
        }
    }

    /// The medium bits a path over this link carries: `IsWWAN` for cellular,
    /// `TransientConnection` for a tunnel, nothing otherwise.
    public var flags: ReachabilityFlags {
        switch self {
        case .wwan: .isWWAN
        case .tunnel: .transientConnection
        case .wifi, .ethernet, .bluetooth, .loopback, .other: []
        }
    }
}
