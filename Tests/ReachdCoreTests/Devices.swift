import ReachdCore

/// NetworkManager devices as they appear on real machines, shared by the mapping tables.
enum Devices {
    static let wlan0 = NetworkDevice(type: .wifi, interface: "wlan0", ipInterface: "wlan0")
    static let eth0 = NetworkDevice(type: .ethernet, interface: "eth0", ipInterface: "eth0")
    static let veth0 = NetworkDevice(type: .veth, interface: "veth0", ipInterface: "veth0")
    /// ModemManager modems: the control port is the interface, the net device carries IP.
    static let modem = NetworkDevice(type: .modem, interface: "cdc-wdm0", ipInterface: "wwan0")
    /// A serial modem before IP is up: only the port is known.
    static let serialModem = NetworkDevice(type: .modem, interface: "ttyUSB2", ipInterface: "")
    static let wg0 = NetworkDevice(type: .wireguard, interface: "wg0", ipInterface: "wg0")
    static let tun0 = NetworkDevice(type: .tun, interface: "tun0", ipInterface: "tun0")
    /// Old-style PPPoE: the ethernet device, with IP on ppp0.
    static let ethPPPoE = NetworkDevice(type: .ethernet, interface: "eth0", ipInterface: "ppp0")
    /// New-style PPPoE (NetworkManager 1.16+): a PPP device of its own.
    static let ppp0 = NetworkDevice(type: .ppp, interface: "ppp0", ipInterface: "ppp0")
    /// Bluetooth PAN: the interface is the adapter's address, IP runs on bnep0.
    static let bluetooth = NetworkDevice(type: .bt, interface: "00:1A:7D:DA:71:13", ipInterface: "bnep0")
    static let ib0 = NetworkDevice(type: .infiniband, interface: "ib0", ipInterface: "ib0")
}
