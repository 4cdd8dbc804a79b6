/// `Source`: where the published reachability comes from, and whether reachd
/// corrected NetworkManager with the kernel's view (`Backend` says only which
/// back end is live).
///
/// ```swift
/// ReachabilitySource.networkManagerRefined.rawValue   // "networkmanager-refined"
/// ```
public enum ReachabilitySource: String, Sendable, Hashable, CaseIterable {
    /// NetworkManager's word, as it is.
    case networkManager = "networkmanager"
    /// NetworkManager's reachability, with the interface and medium of the kernel's actual path.
    case networkManagerRefined = "networkmanager-refined"
    /// The kernel's path (no NetworkManager, or it is still starting).
    case netlink
    /// The kernel's path, overriding a NetworkManager (or ConnMan) that disagrees.
    case netlinkOverride = "netlink-override"
    /// ConnMan's word over the kernel's actual path (contract 5, §5).
    case connman
}

/// `UnsatisfiedReason`: why the network is not usable, in words Linux can know
/// (Apple's `NWPath.UnsatisfiedReason` covers permissions Linux has no source for).
/// `""` whenever Status is 1 or 2.
public enum UnsatisfiedReason: String, Sendable, Hashable, CaseIterable {
    case none = ""
    /// No eligible link has carrier.
    case noLink = "no-link"
    /// Links are up, but no route leads to the Internet.
    case noRoute = "no-route"
    /// NetworkManager is activating (or deactivating) a connection.
    case connecting
    /// A captive portal wants a login.
    case portal
    /// Networking is off, or the machine is going to sleep.
    case disabled
    /// A reject route or rule blocks the path (a kill switch).
    case blocked
    /// The path leaves by a tunnel that has no other link under it.
    case noUnderlay = "no-underlay"
    /// NetworkManager's own connectivity check on the path's interface found nothing.
    case checkFailed = "check-failed"
    /// No source at all.
    case unknown
}
