/// What the kernel says about a network link: sysfs (`/sys/class/net/NAME/`) and its
/// `RTM_NEWLINK` (the link kind). Enough to tell its medium (`LinkMedium`) and whether it can
/// carry the machine's path (`LinkClass`, docs/mapping.md "Which links can carry the path").
///
/// ```swift
/// let facts = LinkFacts(name: "wlan0", hasWirelessDir: true, hasPhy80211: true,
///                       devtype: "wlan", arphrdType: LinkFacts.arphrdEther, hasDeviceLink: true)
/// LinkMedium(facts) // .wifi
/// ```
public struct LinkFacts: Sendable, Hashable {
    /// The interface name; carried for the caller, never used to classify (names are user-chosen).
    public var name: String
    /// `/sys/class/net/NAME/wireless` exists (wireless extensions or cfg80211).
    public var hasWirelessDir: Bool
    /// `/sys/class/net/NAME/phy80211` exists (a cfg80211 device).
    public var hasPhy80211: Bool
    /// `DEVTYPE=` from `/sys/class/net/NAME/uevent` ("wlan", "wwan", "bluetooth", "wireguard",
    /// "bridge", …), `""` when absent.
    public var devtype: String
    /// `/sys/class/net/NAME/type`: the `ARPHRD_*` hardware type.
    public var arphrdType: UInt16
    /// `IFF_UP` in `flags`: administratively up.
    public var isUp: Bool
    /// `carrier` reads 1 (what `ip link` shows as LOWER_UP; the kernel's IFF_RUNNING follows it).
    public var hasCarrier: Bool
    /// `IFF_LOOPBACK` in `flags`.
    public var isLoopback: Bool
    /// `IFLA_INFO_KIND`: what made the link, nil for hardware (and out-of-tree drivers without
    /// `rtnl_link_ops`, such as VirtualBox's `vboxnet*`).
    public var kind: LinkKind?
    /// `master` exists (`IFLA_MASTER`): a port of a bridge, bond, team or VRF.
    public var hasMaster: Bool
    /// `brport/` exists: a bridge port.
    public var isBridgePort: Bool
    /// `device` exists: the link sits on a bus (PCI, USB, SDIO, virtio, …), so it is hardware or
    /// a virtual machine's NIC, never a link software made on this machine.
    public var hasDeviceLink: Bool
    /// `bridge/` exists: the link is a bridge.
    public var isBridge: Bool
    /// The names in `brif/`: a bridge's ports.
    public var bridgePorts: [String]
    /// The links this one is stacked on: `lower_*` names (a bond's or team's ports, a VLAN's,
    /// macvlan's or ipvlan's parent, a bridge's ports), or `IFLA_LINK` in this namespace.
    public var lowerLinks: [String]
    /// `tun_flags` of a tun/tap device (`IFF_TUN` 0x1, `IFF_TAP` 0x2, …), 0 for other links.
    public var tunFlags: UInt32

    public init(name: String, hasWirelessDir: Bool = false, hasPhy80211: Bool = false,
                devtype: String = "", arphrdType: UInt16,
                isUp: Bool = false, hasCarrier: Bool = false, isLoopback: Bool = false,
                kind: LinkKind? = nil, hasMaster: Bool = false, isBridgePort: Bool = false,
                hasDeviceLink: Bool = false, isBridge: Bool = false, bridgePorts: [String] = [],
                lowerLinks: [String] = [], tunFlags: UInt32 = 0) {
        self.name = name
        self.hasWirelessDir = hasWirelessDir
        self.hasPhy80211 = hasPhy80211
        self.devtype = devtype
        self.arphrdType = arphrdType
        self.isUp = isUp
        self.hasCarrier = hasCarrier
        self.isLoopback = isLoopback
        self.kind = kind
        self.hasMaster = hasMaster
        self.isBridgePort = isBridgePort
        self.hasDeviceLink = hasDeviceLink
        self.isBridge = isBridge
        self.bridgePorts = bridgePorts
        self.lowerLinks = lowerLinks
        self.tunFlags = tunFlags
    }

    /// Up and with carrier: what `ip link` shows as "UP,LOWER_UP".
    public var isUpAndRunning: Bool { isUp && hasCarrier }

    /// `ARPHRD_ETHER` (1): Ethernet, and everything that looks like it (Wi-Fi, bridges, veth, bnep).
    public static let arphrdEther: UInt16 = 1
    /// `ARPHRD_PPP` (512).
    public static let arphrdPPP: UInt16 = 512
    /// `ARPHRD_RAWIP` (519): raw IP, used by cellular drivers such as `rmnet` and `mhi_net`.
    public static let arphrdRawIP: UInt16 = 519
    /// `ARPHRD_LOOPBACK` (772).
    public static let arphrdLoopback: UInt16 = 772
    /// `ARPHRD_NONE` (65534): no link layer: `tun`, WireGuard, raw-IP modems.
    public static let arphrdNone: UInt16 = 65534
    /// `ARPHRD_TUNNEL` (768, IPIP), `ARPHRD_TUNNEL6` (769), `ARPHRD_SIT` (776), `ARPHRD_IPGRE` (778).
    public static let arphrdTunnel: UInt16 = 768
    public static let arphrdTunnel6: UInt16 = 769
    public static let arphrdSIT: UInt16 = 776
    public static let arphrdIPGRE: UInt16 = 778

    /// `IFF_TUN` in `tun_flags`: a layer-3 tun device.
    public static let tunFlagTun: UInt32 = 0x1
    /// `IFF_TAP` in `tun_flags`: a layer-2 tap device.
    public static let tunFlagTap: UInt32 = 0x2
}
