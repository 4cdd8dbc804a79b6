/// The medium facts of one NetworkManager active connection: its type and its devices.
///
/// Both the primary connection (medium bits, `InterfaceType`) and the activating one (`IsWWAN` while
/// connecting) are judged by these rules, so the two can never classify a modem differently.
struct NetworkManagerPath {
    var connectionType: String
    var devices: [NetworkDevice]

    /// gsm, cdma, or a modem device: cellular.
    var isWWAN: Bool {
        ["gsm", "cdma"].contains(connectionType) || has(.modem)
    }

    /// vpn, wireguard, pppoe, or a tun, WireGuard or PPP link: Apple's "transient connection",
    /// a path that exists only while a session is up.
    var isTransient: Bool {
        ["vpn", "wireguard", "pppoe"].contains(connectionType) || has(.tun) || has(.wireguard) || has(.ppp)
    }

    /// The medium by precedence vpn > wwan > wifi > ethernet > bluetooth > other: a tunnel is what
    /// the user chose to go through, so it names the path whatever carries it; a modem outranks the
    /// device types it may sit behind (a Bluetooth DUN phone is cellular).
    var interfaceType: InterfaceType {
        if ["vpn", "wireguard"].contains(connectionType) || has(.wireguard) || has(.tun) { return .vpn }
        if isWWAN { return .wwan }
        if connectionType == "802-11-wireless" || has(.wifi) { return .wifi }
        if ["802-3-ethernet", "pppoe"].contains(connectionType) || has(.ethernet) || has(.veth) {
            return .ethernet
        }
        if connectionType == "bluetooth" || has(.bt) { return .bluetooth }
        return .other
    }

    private func has(_ type: NMDeviceType) -> Bool {
        devices.contains { $0.type == type }
    }
}
