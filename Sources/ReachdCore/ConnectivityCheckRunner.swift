/// A connectivity check that runs here and may say `full`, whatever it has said so far:
/// `Details`' `check-runners` lists them. Whether `Level` `online` can ever hold follows from
/// this list (contract 6, §2): one rule for the service, the client library and reachctl.
///
/// | runner | runs when |
/// |---|---|
/// | `networkmanager` | NetworkManager is on the bus and its check is enabled and available |
/// | `connman` | ConnMan is the source (NetworkManager absent): 1.41 checks by default, and its `EnableOnlineCheck` is not on the bus |
/// | `reachd` | a `[connectivity] uri` is set (`REACHD_CONNECTIVITY_URI` in-process) and NetworkManager does not check |
///
/// ```swift
/// ConnectivityCheckRunner.running(networkManager: nil, connman: ConnManSnapshot(state: "ready"),
///                                 reachdCheckConfigured: false)   // [.connman]
/// ```
public enum ConnectivityCheckRunner: String, Sendable, Hashable, CaseIterable {
    case networkManager = "networkmanager"
    case connman
    case reachd

    /// The checks that run, from the sources' words. Pure.
    public static func running(networkManager: NetworkManagerSnapshot?, connman: ConnManSnapshot?,
                               reachdCheckConfigured: Bool) -> [ConnectivityCheckRunner] {
        var runners: [ConnectivityCheckRunner] = []
        if let networkManager {
            if networkManager.connectivityCheckIsLive { return [.networkManager] }
        } else if connman != nil {
            runners.append(.connman)
        }
        if reachdCheckConfigured { runners.append(.reachd) }
        return runners
    }

    /// Whether `Level` `online` can still come, judged on what the service publishes. It cannot
    /// only where that is provable: a source has answered, no check runs (`runners` empty), and
    /// the source is a daemon that says so (NetworkManager with its check off, systemd-networkd).
    /// The kernel alone proves nothing while a system bus is watched: it is also a device's boot
    /// before its network daemon starts (reachd is activated by an early client; NetworkManager
    /// or ConnMan come seconds later, with their checks), so a wait there waits, and its timeout
    /// says what for; so does a system bus whose socket is not there yet (`system-bus-awaited`).
    /// Without a system bus to watch (`no-system-bus`) no daemon can come.
    /// Without `runners` (a reachd older than the key), the check's own facts decide as before.
    ///
    /// | status | runners | source | can hold |
    /// |---|---|---|---|
    /// | unknown | any | any | yes: nothing answered yet |
    /// | known | not empty | any | yes: a check runs (its verdict may be pending) |
    /// | known | empty | NetworkManager, systemd-networkd | no |
    /// | known | empty | the kernel alone, a system bus watched | yes: a network daemon may still start |
    /// | known | empty | the kernel alone, no system bus | no |
    /// | known | absent | any | `checked` or `pending` (an older reachd) |
    public static func onlineCanHold(status: NetworkReachabilityStatus, backend: Backend?,
                                     runners: [ConnectivityCheckRunner]?, checked: Bool, pending: Bool,
                                     systemBusWatched: Bool = true) -> Bool {
        guard status != .unknown else { return true }
        guard let runners else { return checked || pending }
        if !runners.isEmpty || checked { return true }
        switch backend {
        case .networkmanager?, .systemdNetworkd?: return false
        case .netlink?, nil: return systemBusWatched
        case .connman?: return true  // ConnMan always checks; not reached with an empty list
        }
    }
}
