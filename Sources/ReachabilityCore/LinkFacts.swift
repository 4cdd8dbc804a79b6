/// What sysfs says about a network link, read by the kernel backend from `/sys/class/net/NAME/`.
///
/// ```swift
/// let facts = LinkFacts(name: "wlan0", hasWirelessDir: true, hasPhy80211: true,
///                       devtype: "wlan", arphrdType: LinkFacts.arphrdEther)
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

    public init(name: String, hasWirelessDir: Bool = false, hasPhy80211: Bool = false,
                devtype: String = "", arphrdType: UInt16) {
        self.name = name
        self.hasWirelessDir = hasWirelessDir
        self.hasPhy80211 = hasPhy80211
        self.devtype = devtype
        self.arphrdType = arphrdType
    }

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
}
