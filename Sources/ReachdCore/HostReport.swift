/// Everything a host monitor (`io.reachd.Reachability1.Monitor`) publishes besides `Host`, as one value.
///
/// ```swift
/// let report = HostReport(flags: [.reachable, .isWWAN], interface: "wwan0", interfaceType: .wwan)
/// report.status                           // .reachableViaWWAN
/// report.signalDue(from: .notReachable)   // true
/// ```
public struct HostReport: Sendable, Hashable {
    /// `Status`.
    public var status: NetworkReachabilityStatus
    /// `Flags`.
    public var flags: ReachabilityFlags
    /// `Interface`: the outgoing interface of the chosen address, `""` when none.
    public var interface: String
    /// `InterfaceType`: the chosen address's medium, `none` when not reachable.
    public var interfaceType: InterfaceType

    public init(status: NetworkReachabilityStatus, flags: ReachabilityFlags, interface: String,
                interfaceType: InterfaceType) {
        self.status = status
        self.flags = flags
        self.interface = interface
        self.interfaceType = interfaceType
    }

    /// A report whose status is AFNetworking's reading of `flags`.
    public init(flags: ReachabilityFlags, interface: String, interfaceType: InterfaceType) {
        self.init(status: NetworkReachabilityStatus(flags: flags), flags: flags,
                  interface: interface, interfaceType: interfaceType)
    }

    /// Before the first answer (the name is still resolving): Status -1, as AFNetworking starts.
    public static let unknown = HostReport(status: .unknown, flags: [], interface: "", interfaceType: .none)

    /// No address of the host is reachable, or the name does not resolve.
    public static let notReachable = HostReport(flags: [], interface: "", interfaceType: .none)

    /// `Reachable`.
    public var reachable: Bool { status.isReachable }
    /// `ReachableViaWWAN`.
    public var reachableViaWWAN: Bool { status.isReachableViaWWAN }
    /// `ReachableViaWiFi`.
    public var reachableViaWiFi: Bool { status.isReachableViaWiFi }
    /// `StatusString`: AFNetworking's English string.
    public var statusString: String { status.string }

    /// Whether the monitor's `ReachabilityChanged(status, flags)` is due: exactly when that pair changed.
    public func signalDue(from old: HostReport) -> Bool {
        status != old.status || flags != old.flags
    }
}
