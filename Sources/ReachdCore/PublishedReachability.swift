/// Everything the `io.reachd.Reachability1` object publishes, as one value.
///
/// Backends produce it (`init(networkManager:)`, `init(kernelDefaultRoute:ipv6DefaultRoute:)`);
/// the service compares the old and new value (the contract's property table, `signalDue(from:)`) and emits.
/// `Reachable`, `ReachableViaWWAN`, `ReachableViaWiFi` and `StatusString` are derived from `status`,
/// so they cannot disagree with it.
///
/// ```swift
/// let now = PublishedReachability(networkManager: snapshot)
/// if now.signalDue(from: before) { emitReachabilityChanged(now.status, now.flags) }
/// now.statusString   // "Reachable via WiFi"
/// ```
public struct PublishedReachability: Sendable, Hashable {
    /// `Status`.
    public var status: NetworkReachabilityStatus
    /// `Flags`.
    public var flags: ReachabilityFlags
    /// `InterfaceType`: `none` whenever `flags` lack `Reachable`.
    public var interfaceType: InterfaceType
    /// `Interface`: the kernel's interface name, `""` when none.
    public var interface: String
    /// `Metered`.
    public var metered: Bool
    /// `Connectivity`.
    public var connectivity: Connectivity
    /// `Backend`: `nil` when there is no source at all (then `status` is `.unknown`).
    public var backend: Backend?
    /// `Source`: `nil` when there is no source at all.
    public var source: ReachabilitySource?
    /// `UnsatisfiedReason`: `.none` exactly when `status` is reachable.
    public var unsatisfiedReason: UnsatisfiedReason
    /// The path API's facts: families, DNS, the check, gateways, available interfaces.
    public var path: PathFacts = .none
    /// `Details`: what the value was decided from (diagnostics).
    public var details: ReachabilityDetails
    /// `CaptivePortalURL`: the portal's login page while reachd's own check finds one, else `""`.
    public var captivePortalURL: String = ""
    /// `LinkQuality`: how good the path's link is (`LinkQualityInputs`, graded with hysteresis and
    /// a minimum hold); `unknown` without a path or a measurement.
    public var linkQuality: LinkQuality = .unknown

    public init(
        status: NetworkReachabilityStatus,
        flags: ReachabilityFlags,
        interfaceType: InterfaceType,
        interface: String,
        metered: Bool,
        connectivity: Connectivity,
        backend: Backend?,
        source: ReachabilitySource? = nil,
        unsatisfiedReason: UnsatisfiedReason? = nil,
        details: ReachabilityDetails = ReachabilityDetails()
    ) {
        self.status = status
        self.flags = flags
        self.interfaceType = interfaceType
        self.interface = interface
        self.metered = metered
        self.connectivity = connectivity
        self.backend = backend
        self.source = source ?? backend.map { $0 == .networkmanager ? .networkManager : .netlink }
        self.unsatisfiedReason = unsatisfiedReason
            ?? (status.isReachable ? .none : backend == nil ? .unknown : .noRoute)
        self.details = details
    }

    /// What is published while no backend answers: Status -1, Flags 0, Backend "".
    public static let unknown = PublishedReachability(
        status: .unknown,
        flags: [],
        interfaceType: .none,
        interface: "",
        metered: false,
        connectivity: .unknown,
        backend: nil
    )

    /// `Reachable`.
    public var reachable: Bool { status.isReachable }
    /// `ReachableViaWWAN`.
    public var reachableViaWWAN: Bool { status.isReachableViaWWAN }
    /// `ReachableViaWiFi`.
    public var reachableViaWiFi: Bool { status.isReachableViaWiFi }
    /// `StatusString`: always English, AFNetworking's wording; clients localize.
    public var statusString: String { status.string }
    /// `Backend` as D-Bus carries it: `""` when there is no source.
    public var backendName: String { backend?.rawValue ?? "" }
    /// `Source` as D-Bus carries it: `""` when there is no source.
    public var sourceName: String { source?.rawValue ?? "" }
}
