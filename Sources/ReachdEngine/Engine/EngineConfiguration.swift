/// What the engine runs with: where NetworkManager is, how changes are settled and checked, the
/// probes, the host-monitor caps and reachd's own connectivity check. reachd fills it from its
/// options and reachd.conf; the client library in-process from the app's choices.
package struct EngineConfiguration: Sendable {
    /// The system bus to watch NetworkManager and systemd-networkd on; nil for the usual one.
    package var systemBusAddress: String?
    /// Don't look for the system bus at all (the kernel alone): an app in a container without one.
    package var usesSystemBus: Bool
    /// How long a change must hold before it is published (flap suppression).
    package var settle: Duration
    /// Host monitors one account may hold, and all accounts together.
    package var maximumMonitorsPerClient: Int
    package var maximumMonitors: Int
    /// How long a call to NetworkManager may take before it counts as failed (and is retried).
    package var networkManagerCallTimeout: Duration
    /// Probe addresses standing for "the Internet" (nil: the documentation addresses).
    package var probeIPv4: String?
    package var probeIPv6: String?
    /// Hear every route change, routing daemons' too (`--route-events=all`).
    package var allRouteEvents: Bool
    /// Check NetworkManager against the kernel's paths and override it when they disagree.
    package var overrides: Bool
    /// How long NetworkManager and the kernel must disagree before the kernel's answer is published.
    package var overrideDelay: Duration
    /// reachd's own connectivity check, nil when no URI is configured (then it opens no socket).
    package var connectivityCheck: ConnectivityCheckConfiguration?

    package init(
        systemBusAddress: String? = nil, usesSystemBus: Bool = true, settle: Duration = .zero,
        maximumMonitorsPerClient: Int = 64, maximumMonitors: Int = 4096,
        networkManagerCallTimeout: Duration = .seconds(5),
        probeIPv4: String? = nil, probeIPv6: String? = nil, allRouteEvents: Bool = false,
        overrides: Bool = true, overrideDelay: Duration = .seconds(1),
        connectivityCheck: ConnectivityCheckConfiguration? = nil
    ) {
        self.systemBusAddress = systemBusAddress
        self.usesSystemBus = usesSystemBus
        self.settle = settle
        self.maximumMonitorsPerClient = maximumMonitorsPerClient
        self.maximumMonitors = maximumMonitors
        self.networkManagerCallTimeout = networkManagerCallTimeout
        self.probeIPv4 = probeIPv4
        self.probeIPv6 = probeIPv6
        self.allRouteEvents = allRouteEvents
        self.overrides = overrides
        self.overrideDelay = overrideDelay
        self.connectivityCheck = connectivityCheck
    }
}
