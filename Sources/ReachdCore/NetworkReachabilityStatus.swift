/// `AFNetworkReachabilityStatus`: the D-Bus `Status` property (`i`).
///
/// ```swift
/// let status = NetworkReachabilityStatus(flags: [.reachable, .isWWAN])
/// status == .reachableViaWWAN   // true
/// status.string                 // "Reachable via WWAN"
/// status.rawValue               // 1
/// ```
public enum NetworkReachabilityStatus: Int32, Sendable, CaseIterable {
    /// No source of information at all (no NetworkManager, no kernel answer, no service).
    /// Never derived from flags.
    case unknown = -1
    case notReachable = 0
    case reachableViaWWAN = 1
    /// Every reachable medium that is not cellular, as in AFNetworking (ethernet and VPN included).
    case reachableViaWiFi = 2

    /// AFNetworking's `AFNetworkReachabilityStatusForFlags`, with its iPhone (`TARGET_OS_IPHONE`) branch on,
    /// so `IsWWAN` selects `.reachableViaWWAN`.
    ///
    /// Reachable unless a connection is required that cannot come up by itself: `ConnectionRequired`
    /// is forgiven only with `ConnectionOnDemand` or `ConnectionOnTraffic` and without `InterventionRequired`.
    public init(flags: ReachabilityFlags) {
        let isReachable = flags.contains(.reachable)
        let needsConnection = flags.contains(.connectionRequired)
        let canConnectAutomatically = !flags.isDisjoint(with: [.connectionOnDemand, .connectionOnTraffic])
        let canConnectWithoutUserInteraction =
            canConnectAutomatically && !flags.contains(.interventionRequired)
        let isNetworkReachable = isReachable && (!needsConnection || canConnectWithoutUserInteraction)

        if !isNetworkReachable {
            self = .notReachable
        } else if flags.contains(.isWWAN) {
            self = .reachableViaWWAN
        } else {
            self = .reachableViaWiFi
        }
    }

    /// AFNetworking's English string (`AFStringFromNetworkReachabilityStatus`), published as `StatusString`.
    public var string: String {
        switch self {
        case .unknown: "Unknown"
        case .notReachable: "Not Reachable"
        case .reachableViaWWAN: "Reachable via WWAN"
        case .reachableViaWiFi: "Reachable via WiFi"
        }
    }

    /// `Reachable`: over any medium.
    public var isReachable: Bool {
        self == .reachableViaWWAN || self == .reachableViaWiFi
    }

    /// `ReachableViaWWAN`.
    public var isReachableViaWWAN: Bool {
        self == .reachableViaWWAN
    }

    /// `ReachableViaWiFi`: AFNetworking's name for "reachable, not cellular".
    public var isReachableViaWiFi: Bool {
        self == .reachableViaWiFi
    }
}
