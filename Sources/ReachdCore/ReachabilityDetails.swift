/// `Details`: what the published value was decided from, for diagnostics (contract 2, §1.5).
/// Each field is one stable key of the `a{sv}`; a nil field is left out.
///
/// ```swift
/// var details = ReachabilityDetails()
/// details.networkManagerState = 20
/// details.overrideRule = "R8"
/// ```
public struct ReachabilityDetails: Sendable, Hashable {
    /// The kernel path of one family as diagnostics show it.
    public struct Path: Sendable, Hashable {
        /// `pathN-interface`: the outgoing interface, `""` when the kernel named none.
        public var interface: String
        /// `pathN-gateway`: the next hop, nil when on the link.
        public var gateway: String?
        /// `pathN-table`: the routing table the rules chose, 0 when unknown.
        public var table: UInt32
        /// `pathN-error`: why the path is not usable (the verdict's name: `no-route`, `blocked`,
        /// `no-link`, `no-underlay`, `no-source`), nil when it is.
        public var error: String?

        public init(_ path: KernelPath) {
            interface = path.route?.outgoingInterface ?? ""
            gateway = path.gateway
            table = path.table
            error = path.isUsable ? nil : path.verdict.rawValue
        }
    }

    /// `nm-state`, `nm-connectivity`, `nm-check-live`, `nm-startup`: NetworkManager's word, nil without it.
    public var networkManagerState: UInt32?
    public var networkManagerConnectivity: UInt32?
    public var networkManagerCheckLive: Bool?
    public var networkManagerStartup: Bool?
    /// `nm-metered`: NetworkManager's `Metered` (`NMMetered`), nil without it. `Metered` is true for
    /// `yes` and `guess-yes` alike; this tells the user's own setting (`yes`, Apple's Low Data
    /// Mode's nearest: `NWPath.isConstrained`) from NetworkManager's guess.
    public var networkManagerMetered: UInt32?
    /// `path-device-controlled`: NetworkManager controls the path's outgoing device (nil without
    /// NetworkManager or without a usable path).
    public var pathDeviceControlled: Bool?
    /// `path4-*`, `path6-*`.
    public var path4: Path?
    public var path6: Path?
    /// `override-rule`: the decision-table row (`R3`, `R4` … `R9`) by which the kernel overrides
    /// NetworkManager, nil when it does not.
    public var overrideRule: String?
    /// `networkd-online`: systemd-networkd's `OnlineState`, nil unless it is the source.
    public var networkdOnlineState: String?
    /// `networkd-link-online` (`a{ss}`): each link's own `OnlineState`, by name, for the links
    /// networkd has one for (`reachctl wait -i IF:online` reads it); empty unless networkd is the source.
    public var networkdLinkOnlineStates: [String: String] = [:]
    /// `connman-state`, `connman-offline-mode`: ConnMan's manager, nil unless it is the source.
    public var connmanState: String?
    public var connmanOfflineMode: Bool?
    /// `connman-service-type`, `connman-service-state`, `connman-service-error`: the service that
    /// decided (the default one, else the one connecting or failed), nil when there is none.
    public var connmanServiceType: String?
    public var connmanServiceState: String?
    public var connmanServiceError: String?
    /// `connman-ipv4ll`: the IPv4 path has only a link-local source (169.254/16, ConnMan's
    /// fallback when DHCP gets no answer): it reaches the link, not the Internet.
    public var connmanIPv4LinkLocal: Bool?
    /// `override-since-usec`: when the disagreement began (CLOCK_MONOTONIC, µs). Changes of this
    /// key alone are not announced.
    public var overrideSinceMicroseconds: UInt64?
    /// `check-source`: who checked connectivity (`networkmanager` or `reachd`), nil when nobody did.
    public var checkSource: String?
    /// `check-pending`: reachd's own check is on and the path is there, but its first verdict over
    /// this path has not come yet (true, else left out): `ConnectivityChecked` is false only for
    /// now, so a client waiting for `online` waits rather than concluding no check runs.
    public var checkPending: Bool?
    /// `check-runners` (`as`): the connectivity checks that run here and may say `full`
    /// (`networkmanager`, `connman`, `reachd`), whatever they said so far; empty where none
    /// does, so that `online` can never hold (`ConnectivityCheckRunner.onlineCanHold`). Set
    /// whenever a source has answered.
    public var checkRunners: [ConnectivityCheckRunner]?
    /// `no-system-bus`: there is no system bus to watch (none configured, none reachable, or it
    /// went away), so no network daemon, and no check of one, can ever come: with the kernel
    /// alone that makes `online` provably out of reach. True, else left out.
    public var noSystemBus: Bool?
    /// `system-bus-awaited`: the system bus's socket, while reachd waits for it to be made (a boot
    /// before the bus daemon, or the bus restarting): the kernel answers alone meanwhile, and a
    /// network daemon may yet come. Else left out.
    public var systemBusAwaited: String?
    /// `check-uri`, `check-http-status`, `check-usec`: reachd's own check, its URI, the HTTP status it
    /// was answered (nil without an answer) and when it ended (CLOCK_MONOTONIC, µs; changes of this
    /// key alone are not announced).
    public var checkURI: String?
    public var checkHTTPStatus: UInt32?
    public var checkMicroseconds: UInt64?
    /// `link-signal`, `link-signal-source`: the radio signal of the path's Wi-Fi or cellular link
    /// (0–100) and who measured it (`LinkQualityInputs.SignalSource`); nil without one. Changes of
    /// `link-signal` alone are not announced: a signal moves all the time, `LinkQuality` says when
    /// it matters.
    public var linkSignal: UInt8?
    public var linkSignalSource: String?
    /// `link-speed-mbps`: the path's Ethernet link speed in Mb/s, nil where the driver does not know it.
    public var linkSpeedMegabits: UInt32?

    public init() {}
}
