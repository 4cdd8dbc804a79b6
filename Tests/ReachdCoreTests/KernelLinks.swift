import ReachdCore

/// Kernel links as sysfs and `RTM_NEWLINK` describe them on real machines, for the
/// classification table. Names are what such links are usually called; the classifier never
/// reads them (every test would pass with the names swapped).
enum KernelLinks {
    static let lo = LinkFacts(name: "lo", arphrdType: 772, isLoopback: true)
    /// A PCI or USB NIC: a bus behind it, no kind.
    static func nic(_ name: String, enslaved: Bool = false, bridged: Bool = false) -> LinkFacts {
        LinkFacts(name: name, arphrdType: 1, hasMaster: enslaved || bridged, isBridgePort: bridged, hasDeviceLink: true)
    }
    static let wlan0 = LinkFacts(name: "wlan0", hasWirelessDir: true, hasPhy80211: true, devtype: "wlan",
                                 arphrdType: 1, hasDeviceLink: true)
    /// A QMI modem in raw-IP mode: no link layer, like tun, but on USB.
    static let wwan0 = LinkFacts(name: "wwan0", devtype: "wwan", arphrdType: 65534, hasDeviceLink: true)
    static let ppp0 = LinkFacts(name: "ppp0", arphrdType: 512, kind: "ppp")

    static func bridge(_ name: String, ports: [String], enslaved: Bool = false) -> LinkFacts {
        LinkFacts(name: name, devtype: "bridge", arphrdType: 1, kind: .bridge, hasMaster: enslaved,
                  isBridge: true, bridgePorts: ports, lowerLinks: ports)
    }
    static func stacked(_ name: String, kind: LinkKind, on lowers: [String], enslaved: Bool = false) -> LinkFacts {
        LinkFacts(name: name, arphrdType: 1, kind: kind, hasMaster: enslaved, lowerLinks: lowers)
    }
    static func veth(_ name: String, bridged: Bool = false) -> LinkFacts {
        LinkFacts(name: name, arphrdType: 1, kind: .veth, hasMaster: bridged, isBridgePort: bridged)
    }
    static func tun(_ name: String) -> LinkFacts {
        LinkFacts(name: name, arphrdType: 65534, kind: .tun, tunFlags: 0x1001)  // IFF_TUN | IFF_NO_PI
    }
    static func tap(_ name: String, bridged: Bool = false) -> LinkFacts {
        LinkFacts(name: name, arphrdType: 1, kind: .tun, hasMaster: bridged, isBridgePort: bridged,
                  tunFlags: 0x1002)  // IFF_TAP | IFF_NO_PI
    }
    static func software(_ name: String, kind: LinkKind, type: UInt16 = 1) -> LinkFacts {
        LinkFacts(name: name, arphrdType: type, kind: kind)
    }
    /// VirtualBox's host-only adapter: an out-of-tree driver, no kind, no bus.
    static let vboxnet0 = LinkFacts(name: "vboxnet0", arphrdType: 1)
}
