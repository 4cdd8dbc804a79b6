/// NetworkManager's `NMDeviceType` (a device's `DeviceType` property, `u`): every value, with NM's names.
///
/// A struct with static members rather than an enum, so a value a newer NetworkManager adds
/// survives: it is kept, compared and printed as a number instead of being lost or trapping.
/// `switch` over it needs a `default:`, which is where such a value lands.
/// Unknown values count as no particular medium (`other`).
///
/// ```swift
/// let value = NMDeviceType(rawValue: 8)
/// value == .modem                 // true
/// print(value)                    // MODEM
/// print(NMDeviceType(rawValue: 99))// NMDeviceType(99)
/// ```
public struct NMDeviceType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// `NM_DEVICE_TYPE_UNKNOWN` (0): Unknown device.
    public static let unknown = NMDeviceType(rawValue: 0)
    /// `NM_DEVICE_TYPE_ETHERNET` (1): A wired ethernet device.
    public static let ethernet = NMDeviceType(rawValue: 1)
    /// `NM_DEVICE_TYPE_WIFI` (2): An 802.11 Wi-Fi device.
    public static let wifi = NMDeviceType(rawValue: 2)
    /// `NM_DEVICE_TYPE_UNUSED1` (3): Not used.
    public static let unused1 = NMDeviceType(rawValue: 3)
    /// `NM_DEVICE_TYPE_UNUSED2` (4): Not used.
    public static let unused2 = NMDeviceType(rawValue: 4)
    /// `NM_DEVICE_TYPE_BT` (5): A Bluetooth device supporting PAN or DUN access protocols.
    public static let bt = NMDeviceType(rawValue: 5)
    /// `NM_DEVICE_TYPE_OLPC_MESH` (6): An OLPC XO mesh networking device.
    public static let olpcMesh = NMDeviceType(rawValue: 6)
    /// `NM_DEVICE_TYPE_WIMAX` (7): An 802.16e Mobile WiMAX broadband device.
    public static let wimax = NMDeviceType(rawValue: 7)
    /// `NM_DEVICE_TYPE_MODEM` (8): A modem: analog telephone, CDMA/EVDO, GSM/UMTS or LTE.
    public static let modem = NMDeviceType(rawValue: 8)
    /// `NM_DEVICE_TYPE_INFINIBAND` (9): An IP-over-InfiniBand device.
    public static let infiniband = NMDeviceType(rawValue: 9)
    /// `NM_DEVICE_TYPE_BOND` (10): A bond master interface.
    public static let bond = NMDeviceType(rawValue: 10)
    /// `NM_DEVICE_TYPE_VLAN` (11): An 802.1Q VLAN interface.
    public static let vlan = NMDeviceType(rawValue: 11)
    /// `NM_DEVICE_TYPE_ADSL` (12): An ADSL modem.
    public static let adsl = NMDeviceType(rawValue: 12)
    /// `NM_DEVICE_TYPE_BRIDGE` (13): A bridge master interface.
    public static let bridge = NMDeviceType(rawValue: 13)
    /// `NM_DEVICE_TYPE_GENERIC` (14): A generic support for unrecognized device types.
    public static let generic = NMDeviceType(rawValue: 14)
    /// `NM_DEVICE_TYPE_TEAM` (15): A team master interface.
    public static let team = NMDeviceType(rawValue: 15)
    /// `NM_DEVICE_TYPE_TUN` (16): A TUN or TAP interface.
    public static let tun = NMDeviceType(rawValue: 16)
    /// `NM_DEVICE_TYPE_IP_TUNNEL` (17): An IP tunnel interface.
    public static let ipTunnel = NMDeviceType(rawValue: 17)
    /// `NM_DEVICE_TYPE_MACVLAN` (18): A MACVLAN interface.
    public static let macvlan = NMDeviceType(rawValue: 18)
    /// `NM_DEVICE_TYPE_VXLAN` (19): A VXLAN interface.
    public static let vxlan = NMDeviceType(rawValue: 19)
    /// `NM_DEVICE_TYPE_VETH` (20): A VETH interface.
    public static let veth = NMDeviceType(rawValue: 20)
    /// `NM_DEVICE_TYPE_MACSEC` (21): A MACsec interface.
    public static let macsec = NMDeviceType(rawValue: 21)
    /// `NM_DEVICE_TYPE_DUMMY` (22): A dummy interface.
    public static let dummy = NMDeviceType(rawValue: 22)
    /// `NM_DEVICE_TYPE_PPP` (23): A PPP interface.
    public static let ppp = NMDeviceType(rawValue: 23)
    /// `NM_DEVICE_TYPE_OVS_INTERFACE` (24): An Open vSwitch interface.
    public static let ovsInterface = NMDeviceType(rawValue: 24)
    /// `NM_DEVICE_TYPE_OVS_PORT` (25): An Open vSwitch port.
    public static let ovsPort = NMDeviceType(rawValue: 25)
    /// `NM_DEVICE_TYPE_OVS_BRIDGE` (26): An Open vSwitch bridge.
    public static let ovsBridge = NMDeviceType(rawValue: 26)
    /// `NM_DEVICE_TYPE_WPAN` (27): An IEEE 802.15.4 (WPAN) MAC Layer Device.
    public static let wpan = NMDeviceType(rawValue: 27)
    /// `NM_DEVICE_TYPE_6LOWPAN` (28): A 6LoWPAN interface.
    public static let sixLowPAN = NMDeviceType(rawValue: 28)
    /// `NM_DEVICE_TYPE_WIREGUARD` (29): A WireGuard interface.
    public static let wireguard = NMDeviceType(rawValue: 29)
    /// `NM_DEVICE_TYPE_WIFI_P2P` (30): An 802.11 Wi-Fi P2P device.
    public static let wifiP2P = NMDeviceType(rawValue: 30)
    /// `NM_DEVICE_TYPE_VRF` (31): A VRF (Virtual Routing and Forwarding) interface.
    public static let vrf = NMDeviceType(rawValue: 31)
    /// `NM_DEVICE_TYPE_LOOPBACK` (32): A loopback interface.
    public static let loopback = NMDeviceType(rawValue: 32)
    /// `NM_DEVICE_TYPE_HSR` (33): An HSR/PRP device.
    public static let hsr = NMDeviceType(rawValue: 33)
    /// `NM_DEVICE_TYPE_IPVLAN` (34): An IPVLAN device.
    public static let ipvlan = NMDeviceType(rawValue: 34)

    /// Every value this version knows, in numeric order.
    public static let allKnown: [NMDeviceType] = [
        .unknown, .ethernet, .wifi, .unused1, .unused2, .bt, .olpcMesh, .wimax, .modem, .infiniband, .bond,
        .vlan, .adsl, .bridge, .generic, .team, .tun, .ipTunnel, .macvlan, .vxlan, .veth, .macsec, .dummy,
        .ppp, .ovsInterface, .ovsPort, .ovsBridge, .wpan, .sixLowPAN, .wireguard, .wifiP2P, .vrf, .loopback,
        .hsr, .ipvlan,
    ]

    /// NetworkManager's name without the `NM_DEVICE_TYPE_` prefix; `nil` for a value this version does not know.
    public var name: String? {
        switch rawValue {
        case 0: "UNKNOWN"
        case 1: "ETHERNET"
        case 2: "WIFI"
        case 3: "UNUSED1"
        case 4: "UNUSED2"
        case 5: "BT"
        case 6: "OLPC_MESH"
        case 7: "WIMAX"
        case 8: "MODEM"
        case 9: "INFINIBAND"
        case 10: "BOND"
        case 11: "VLAN"
        case 12: "ADSL"
        case 13: "BRIDGE"
        case 14: "GENERIC"
        case 15: "TEAM"
        case 16: "TUN"
        case 17: "IP_TUNNEL"
        case 18: "MACVLAN"
        case 19: "VXLAN"
        case 20: "VETH"
        case 21: "MACSEC"
        case 22: "DUMMY"
        case 23: "PPP"
        case 24: "OVS_INTERFACE"
        case 25: "OVS_PORT"
        case 26: "OVS_BRIDGE"
        case 27: "WPAN"
        case 28: "6LOWPAN"
        case 29: "WIREGUARD"
        case 30: "WIFI_P2P"
        case 31: "VRF"
        case 32: "LOOPBACK"
        case 33: "HSR"
        case 34: "IPVLAN"
        default: nil
        }
    }

    public var description: String {
        name ?? "NMDeviceType(\(rawValue))"
    }
}
