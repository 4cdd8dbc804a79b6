internal import ReachdDBus

/// What the service says about one path at one moment: the values an `updates` stream carries.
///
/// For the default route (`NetworkReachabilityManager()`), these are the properties of
/// `io.reachd.Reachability1`. A host manager's monitor publishes no `Metered`, `Connectivity`
/// or `Backend`: there they stay `false`, `.unknown` and `nil`.
///
/// ```swift
/// for await update in NetworkReachabilityManager.shared.updates {
///     print(update.status, update.flags, update.interfaceType, update.isMetered)
/// }
/// ```
public struct ReachabilityUpdate: Sendable, Hashable {
    /// `Status`: AFNetworking's status.
    public var status: NetworkReachabilityStatus
    /// `Flags`: `SCNetworkReachabilityFlags`.
    public var flags: ReachabilityFlags
    /// `InterfaceType`: the medium of the path (`.none` when not reachable).
    public var interfaceType: InterfaceType
    /// `Interface`: the kernel's name of the interface, `""` when none.
    public var interface: String
    /// `Metered`: NetworkManager says the connection costs by volume (or, without it, it is WWAN).
    public var isMetered: Bool
    /// `Connectivity`: NetworkManager's connectivity check, or reachd's own where NetworkManager does not check
    /// (`connectivityCheckSource` says which).
    public var connectivity: Connectivity
    /// `Backend`: the service's live source; `nil` when it has none or the service is not there.
    public var backend: Backend?
    /// `Source`: NetworkManager's word, refined or overridden by the kernel's path; `nil` when
    /// the service has none (or is older than the path API).
    public var source: ReachabilitySource?
    /// `UnsatisfiedReason`: why the network is not usable (`.none` when reachable); `.unknown`
    /// without a source.
    public var unsatisfiedReason: UnsatisfiedReason = .unknown
    /// `Level`: how far the network goes.
    public var level: NetworkLevel = .unknown
    /// `InterfaceVersion`: 5 for a reachd that grades its `LinkQuality`, 4 for one that says its
    /// `NetworkNamespace`, 3 for one with
    /// `CaptivePortalURL` and its own connectivity check, 2 for
    /// one with the path API, 1 (absent) before it.
    public var interfaceVersion: UInt32 = 1
    /// The path API's facts (`SupportsIPv4`, …, `AvailableInterfaces`); all false and empty
    /// from an older reachd.
    public var path: PathFacts = .none
    /// What NetworkManager says (`Details`' `nm-state`), `nil` without NetworkManager: under an
    /// override, the word the service did not follow.
    public var networkManagerState: NMState?
    /// NetworkManager's `Metered` (`Details`' `nm-metered`), `nil` without NetworkManager: `.yes`
    /// is the user's own setting, `.guessYes` NetworkManager's guess; `isMetered` is true for both.
    public var networkManagerMetered: NMMetered?
    /// What ConnMan's manager says (`Details`' `connman-state`: `offline`, `idle`, `ready`,
    /// `online`), `nil` unless ConnMan is the source: under an override, the word not followed.
    public var connmanState: String?
    /// Who checked connectivity (`Details`' `check-source`): `networkmanager`, `connman` (its
    /// `online`), `reachd` (its own check, where neither checks), `nil` when nobody did.
    public var connectivityCheckSource: String?
    /// reachd's own connectivity check is on and about to give its first verdict over this path
    /// (`Details`' `check-pending`): `path.connectivityChecked` is false only until it does.
    public var connectivityCheckPending = false
    /// The connectivity checks that run here (`Details`' `check-runners`), whatever they said
    /// so far; `nil` from a reachd that does not say (older than contract 6) or before any answer.
    public var connectivityCheckRunners: [ConnectivityCheckRunner]?
    /// `check-runners` named a check this library does not know (a newer reachd's): it runs.
    var hasUnknownCheckRunner = false
    /// The service watches a system bus, where a network daemon may yet start (`Details`'
    /// `no-system-bus` is absent).
    public var systemBusWatched = true
    /// The system bus's socket while the service waits for it to be made (`Details`'
    /// `system-bus-awaited`: a boot before the bus daemon); nil otherwise.
    public var systemBusAwaited: String?
    /// Whether `Level` `online` can still come: false only where no check runs and that is
    /// provable (`ConnectivityCheckRunner.onlineCanHold`); while no source has answered, or a
    /// check runs that has not said `full` yet, it can.
    ///
    /// ```swift
    /// let update = try await NetworkReachabilityManager.shared.fetchUpdate()
    /// if !update.onlineCanHold { print("no connectivity check runs here") }
    /// ```
    public var onlineCanHold: Bool {
        guard interfaceVersion >= 2, !hasUnknownCheckRunner else { return true }
        return ConnectivityCheckRunner.onlineCanHold(
            status: status, backend: backend, runners: connectivityCheckRunners,
            checked: path.connectivityChecked, pending: connectivityCheckPending, systemBusWatched: systemBusWatched)
    }
    /// `CaptivePortalURL`: behind a portal reachd's own check found, the login page; `""` otherwise.
    public var captivePortalURL: String = ""
    /// `LinkQuality`: how good the path's link is (Apple's `NWPath.linkQuality`); `.unknown` from
    /// a reachd older than interface version 5, and wherever nothing is measured.
    public var linkQuality: LinkQuality = .unknown
    /// systemd-networkd's `OnlineState` of each link it has one for, by name (`Details`'
    /// `networkd-link-online`); empty unless `backend` is `.systemdNetworkd`.
    public var networkdLinkOnlineStates: [String: String] = [:]
    /// Who answered: reachd on the session bus, on the system bus, or the engine in this process
    /// (contract 4, §2.1); nil while nobody does (Unknown). A move to another provider is one
    /// update whose `service` changed.
    public var service: ReachabilityProvider?
    /// Nearer providers this answer passed over although they were set up to answer (each
    /// error's `provider` says which, `isFailedSetUp` holds): reachd installed on the system bus
    /// that did not start, a `DBUS_SESSION_BUS_ADDRESS` that names no usable bus. Empty when the
    /// nearest set-up provider answered, and always with a chosen one (it fails instead).
    ///
    /// ```swift
    /// for skipped in try await NetworkReachabilityManager.shared.fetchUpdate().passedOver {
    ///     print("passed over \(skipped.provider!): \(skipped.message)")
    /// }
    /// ```
    public var passedOver: [ReachabilityError] = []
    /// `NetworkNamespace`: the inode of the network namespace the answer is for (0 when the
    /// service does not say: an older reachd).
    public var networkNamespace: UInt64 = 0

    public init(
        status: NetworkReachabilityStatus, flags: ReachabilityFlags = [], interfaceType: InterfaceType = .none,
        interface: String = "", isMetered: Bool = false, connectivity: Connectivity = .unknown,
        backend: Backend? = nil, source: ReachabilitySource? = nil, unsatisfiedReason: UnsatisfiedReason = .none,
        networkManagerState: NMState? = nil
    ) {
        self.source = source
        self.unsatisfiedReason = unsatisfiedReason
        self.networkManagerState = networkManagerState
        self.status = status
        self.flags = flags
        self.interfaceType = interfaceType
        self.interface = interface
        self.isMetered = isMetered
        self.connectivity = connectivity
        self.backend = backend
    }

    /// What the client reports while it cannot hear the service: Status -1, Flags 0.
    public static let unknown = ReachabilityUpdate(status: .unknown)

    /// Reachable over any medium.
    public var isReachable: Bool { status.isReachable }
    /// Reachable over a cellular modem.
    public var isReachableViaWWAN: Bool { status.isReachableViaWWAN }
    /// Reachable, not over a cellular modem (AFNetworking's "WiFi").
    public var isReachableViaWiFi: Bool { status.isReachableViaWiFi }
}

extension ReachabilityUpdate {
    /// Applies properties as `GetAll` or `PropertiesChanged` carry them; unknown names and
    /// values of the wrong type are ignored, so a newer service with more properties still works.
    mutating func apply(_ properties: [String: DBusValue]) {
        for (name, value) in properties {
            switch (name, value.unwrappingVariant) {
            case ("Status", .int32(let raw)):
                status = NetworkReachabilityStatus(rawValue: raw) ?? .unknown
            case ("Flags", .uint32(let raw)):
                flags = ReachabilityFlags(rawValue: raw)
            case ("InterfaceType", .string(let text)):
                interfaceType = InterfaceType(rawValue: text) ?? .other
            case ("Interface", .string(let text)):
                interface = text
            case ("Metered", .boolean(let metered)):
                isMetered = metered
            case ("Connectivity", .string(let text)):
                connectivity = Connectivity(rawValue: text) ?? .unknown
            case ("Backend", .string(let text)):
                backend = Backend(rawValue: text)
            case ("Source", .string(let text)):
                source = ReachabilitySource(rawValue: text)
            case ("UnsatisfiedReason", .string(let text)):
                unsatisfiedReason = UnsatisfiedReason(rawValue: text) ?? .unknown
            case ("Level", .string(let text)):
                level = NetworkLevel(rawValue: text) ?? .unknown
            case ("InterfaceVersion", .uint32(let version)):
                interfaceVersion = version
            case ("SupportsIPv4", .boolean(let value)):
                path.supportsIPv4 = value
            case ("SupportsIPv6", .boolean(let value)):
                path.supportsIPv6 = value
            case ("SupportsDNS", .boolean(let value)):
                path.supportsDNS = value
            case ("ConnectivityChecked", .boolean(let value)):
                path.connectivityChecked = value
            case ("UnderlyingInterfaceType", .string(let text)):
                path.underlyingInterfaceType = text.isEmpty ? nil : InterfaceType(rawValue: text) ?? .other
            case ("Gateways", .array(_, let items)):
                path.gateways = items.compactMap(\.stringValue)
            case ("AvailableInterfaces", .array(_, let items)):
                path.availableInterfaces = items.compactMap { item in
                    guard case .structure(let fields) = item, fields.count == 3, let name = fields[0].stringValue,
                          let type = fields[1].stringValue, case .boolean(let hasPath) = fields[2] else { return nil }
                    return PathFacts.AvailableInterface(name: name, type: InterfaceType(rawValue: type) ?? .other,
                                                        hasInternetPath: hasPath)
                }
            case ("CaptivePortalURL", .string(let text)):
                captivePortalURL = text
            case ("LinkQuality", .string(let text)):
                linkQuality = LinkQuality(rawValue: text) ?? .unknown
            case ("NetworkNamespace", .uint64(let inode)):
                networkNamespace = inode
            case ("Details", let details):
                let details = Self.properties(in: details)
                networkdLinkOnlineStates = [:]
                if case .dictionary(_, _, let entries)? = details["networkd-link-online"]?.unwrappingVariant {
                    for entry in entries {
                        if let name = entry.key.stringValue, let state = entry.value.stringValue { networkdLinkOnlineStates[name] = state }
                    }
                }
                if case .uint32(let metered)? = details["nm-metered"]?.unwrappingVariant {
                    networkManagerMetered = NMMetered(rawValue: metered)
                } else {
                    networkManagerMetered = nil
                }
                if case .uint32(let state)? = details["nm-state"]?.unwrappingVariant {
                    networkManagerState = NMState(rawValue: state)
                } else {
                    networkManagerState = nil
                }
                connmanState = details["connman-state"]?.unwrappingVariant.stringValue
                connectivityCheckSource = details["check-source"]?.unwrappingVariant.stringValue
                if case .array(_, let items)? = details["check-runners"]?.unwrappingVariant {
                    let names = items.compactMap(\.stringValue)
                    connectivityCheckRunners = names.compactMap(ConnectivityCheckRunner.init(rawValue:))
                    // A check a newer reachd names and this library does not know still runs.
                    hasUnknownCheckRunner = connectivityCheckRunners!.count < names.count
                } else {
                    connectivityCheckRunners = nil
                    hasUnknownCheckRunner = false
                }
                systemBusWatched = details["no-system-bus"]?.unwrappingVariant != .boolean(true)
                systemBusAwaited = details["system-bus-awaited"]?.unwrappingVariant.stringValue
                if case .boolean(let pending)? = details["check-pending"]?.unwrappingVariant {
                    connectivityCheckPending = pending
                } else {
                    connectivityCheckPending = false
                }
            default:
                break
            }
        }
    }

    /// The `a{sv}` of a `GetAll` reply or a `PropertiesChanged` signal as a dictionary.
    static func properties(in value: DBusValue) -> [String: DBusValue] {
        guard case .dictionary(_, _, let entries) = value else { return [:] }
        var properties: [String: DBusValue] = [:]
        for entry in entries {
            if let name = entry.key.stringValue { properties[name] = entry.value }
        }
        return properties
    }
}
