/// One device NetworkManager knows (any device in the manager's `Devices`), with the facts the
/// cross-check with the kernel needs: which kernel link it is, and whether NetworkManager
/// controls it (contract 2, §1.3).
///
/// ```swift
/// let eth0 = NetworkManagerDevice(interface: "eth0", managed: false, state: .unmanaged)
/// eth0.isControlled   // false: NetworkManager cannot touch it, so its routes are not NM's
/// ```
public struct NetworkManagerDevice: Sendable, Hashable {
    /// `DeviceType`.
    public var type: NMDeviceType
    /// `Interface`.
    public var interface: String
    /// `IpInterface`, `""` when not known.
    public var ipInterface: String
    /// `Managed`.
    public var managed: Bool
    /// `State`.
    public var state: NMDeviceState
    /// `Ip4Connectivity`, `Ip6Connectivity` (NetworkManager 1.16 and later; UNKNOWN before).
    public var ip4Connectivity: NMConnectivityState
    public var ip6Connectivity: NMConnectivityState
    /// The device's active connection has `StateFlags` EXTERNAL (0x80): NetworkManager only
    /// mirrors a configuration someone else made.
    public var isExternal: Bool
    /// The radio signal, 0–100: a Wi-Fi device's active access point's `Strength`; nil for other
    /// devices and while the device has no access point.
    public var signalStrength: UInt8?
    /// A modem device's `Udi`: the ModemManager object of its modem
    /// (`/org/freedesktop/ModemManager1/Modem/0`), whose `SignalQuality` is the cellular signal;
    /// nil for other devices.
    public var modemPath: String?

    public init(
        type: NMDeviceType = .unknown, interface: String, ipInterface: String = "", managed: Bool,
        state: NMDeviceState, ip4Connectivity: NMConnectivityState = .unknown,
        ip6Connectivity: NMConnectivityState = .unknown, isExternal: Bool = false, signalStrength: UInt8? = nil,
        modemPath: String? = nil
    ) {
        self.type = type
        self.interface = interface
        self.ipInterface = ipInterface
        self.managed = managed
        self.state = state
        self.ip4Connectivity = ip4Connectivity
        self.ip6Connectivity = ip6Connectivity
        self.isExternal = isExternal
        self.signalStrength = signalStrength
        self.modemPath = modemPath
    }

    /// The kernel's name for it: `IpInterface` if known, else `Interface`.
    public var kernelName: String { ipInterface.isEmpty ? interface : ipInterface }

    /// NetworkManager controls the device: managed, not UNMANAGED, and not merely mirroring an
    /// external configuration.
    public var isControlled: Bool { managed && state != .unmanaged && !isExternal }
}
