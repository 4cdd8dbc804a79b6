/// The decision table of contract 2, §1.4: what reachd publishes from NetworkManager's word and
/// the kernel's paths of both families, checked against each other. Pure: no clock, no I/O. The
/// caller says how long a disagreement has held; the table says whether that is long enough.
///
/// | row | when | published |
/// |---|---|---|
/// | R0 | NetworkManager not on the bus | the kernel's path (`netlink`), with systemd-networkd's word when it is a source (`PublishedReachability(kernelPath4:kernelPath6:networkd:)`); with ConnMan on the bus, its own table (`ReachabilityDecision+ConnMan.swift`) |
/// | R1 | NetworkManager starting (`Startup`), State < 60, a usable kernel path | the kernel's path |
/// | R2 | ASLEEP | NetworkManager (`disabled`), never overridden |
/// | R3 | a captive portal | NetworkManager; over a device it does not control while it says < 60, the kernel's path with the portal flags |
/// | R4 ⏱ | NetworkManager reachable, both families rejected or unrouted | Not Reachable (`blocked` or `no-route`) |
/// | R5 ⏱ | NetworkManager reachable, the routed families' links have no carrier | Not Reachable (`no-link`) |
/// | R6 | NetworkManager reachable, a usable kernel path | NetworkManager's reachability, the path's interface and medium |
/// | R7 | NetworkManager reachable otherwise | NetworkManager |
/// | R8 ⏱ | UNKNOWN, DISCONNECTED, CONNECTED_LOCAL; a usable path over a device NetworkManager does not control; no VPN activating; its check did not fail there | the kernel's path (`netlink-override`) |
/// | R9 ⏱ | DISCONNECTING, CONNECTING, and R8's conditions | the kernel's path (`netlink-override`) |
/// | R10 | DISCONNECTING, CONNECTING | NetworkManager (`connecting`) |
/// | R11 | not connected, the path's device is NetworkManager's | NetworkManager (`no-route`) |
/// | R12 | its live check found nothing on the path's device | NetworkManager (`check-failed`) |
/// | R13 | anything else | NetworkManager (`no-link` when the path's link has no carrier) |
///
/// ⏱: the row applies only once its condition has held for the delay; until then the row that
/// would match without it decides, and `pending` names the waiting row.
///
/// ```swift
/// let decision = ReachabilityDecision(.init(
///     networkManager: NetworkManagerSnapshot(state: .disconnected), ipv4: pathOverEth0, ipv6: .none,
///     disagreementHeld: .seconds(2)))
/// decision.rule                 // .r8
/// decision.published.source     // .netlinkOverride
/// ```
public struct ReachabilityDecision: Sendable, Hashable {
    /// A row of the table.
    public enum Rule: String, Sendable, Hashable, CaseIterable {
        case r0 = "R0", r1 = "R1", r2 = "R2", r3 = "R3", r4 = "R4", r5 = "R5", r6 = "R6"
        case r7 = "R7", r8 = "R8", r9 = "R9", r10 = "R10", r11 = "R11", r12 = "R12", r13 = "R13"

        /// The row overrides NetworkManager only after the disagreement has held for the delay.
        public var isTimed: Bool { self == .r4 || self == .r5 || self == .r8 || self == .r9 }
        /// The row makes reachable what NetworkManager says is not (R8, R9); R4 and R5 go the other way.
        public var raisesReachability: Bool { self == .r8 || self == .r9 }
    }

    /// What the table is evaluated on.
    public struct Input: Sendable, Hashable {
        /// NetworkManager's word; nil while it is not on the bus.
        public var networkManager: NetworkManagerSnapshot?
        /// The kernel's paths.
        public var ipv4: KernelPath
        public var ipv6: KernelPath
        /// False with `--no-override`: NetworkManager's word as it is (reachd before the cross-check).
        public var overrides: Bool
        /// How long a disagreement must hold before a timed row takes effect.
        public var delay: Duration
        /// How long the disagreement now pending has held; nil when none was pending.
        public var disagreementHeld: Duration?
        /// When it began (CLOCK_MONOTONIC, µs), for `Details` only.
        public var disagreementSinceMicroseconds: UInt64?
        /// systemd-networkd's word; nil while it is not on the bus. Used only without NetworkManager.
        public var networkd: NetworkdSnapshot?
        /// ConnMan's word; nil while it is not on the bus. Used only without NetworkManager, and
        /// ahead of systemd-networkd (a machine running both has ConnMan manage its links).
        public var connman: ConnManSnapshot?
        /// Some link that could carry a path (not loopback, not a sink) is up with carrier:
        /// without it, no route is `no-link` (R13).
        public var hasEligibleLink: Bool

        public init(
            networkManager: NetworkManagerSnapshot?, ipv4: KernelPath, ipv6: KernelPath = .none, overrides: Bool = true,
            delay: Duration = .seconds(1), disagreementHeld: Duration? = nil,
            disagreementSinceMicroseconds: UInt64? = nil, networkd: NetworkdSnapshot? = nil, hasEligibleLink: Bool = true,
            connman: ConnManSnapshot? = nil
        ) {
            self.networkd = networkd
            self.connman = connman
            self.hasEligibleLink = hasEligibleLink
            self.networkManager = networkManager
            self.ipv4 = ipv4
            self.ipv6 = ipv6
            self.overrides = overrides
            self.delay = delay
            self.disagreementHeld = disagreementHeld
            self.disagreementSinceMicroseconds = disagreementSinceMicroseconds
        }
    }

    /// What to publish.
    public var published: PublishedReachability
    /// The row that decided it.
    public var rule: Rule
    /// A timed row whose condition holds but not yet for the delay.
    public var pending: Rule?
    /// How much longer `pending` must hold; nil when nothing is pending.
    public var pendingRemaining: Duration?

    public init(_ input: Input) {
        let facts = Facts(input)
        var decision = Self.evaluate(facts, timedRows: true)
        let held = input.disagreementHeld ?? .zero
        if decision.rule.isTimed, held < input.delay {
            let waiting = decision.rule
            decision = Self.evaluate(facts, timedRows: false)
            decision.pending = waiting
            decision.pendingRemaining = input.delay - held
        }
        decision.published.details = facts.details(
            overrideRule: decision.published.source == .netlinkOverride ? decision.rule.rawValue : nil,
            since: decision.rule.isTimed ? input.disagreementSinceMicroseconds : nil)
        self = decision
    }

    init(_ published: PublishedReachability, _ rule: Rule) {
        self.published = published
        self.rule = rule
    }

    /// §1.3's definitions, computed once.
    struct Facts {
        let input: Input
        /// The kernel's view as published without NetworkManager.
        let kernel: PublishedReachability
        /// K.ok: either family has a usable path.
        let kernelOK: Bool
        /// The family that decides (IPv4 when usable, else IPv6), when one is usable.
        let deciding: KernelPath?
        let decidingIsIPv4: Bool
        /// D: NetworkManager's device for the path's outgoing interface.
        let device: NetworkManagerDevice?

        init(_ input: Input) {
            self.input = input
            kernel = PublishedReachability(kernelPath4: input.ipv4, kernelPath6: input.ipv6,
                                           hasEligibleLink: input.hasEligibleLink)
            kernelOK = input.ipv4.isUsable || input.ipv6.isUsable
            decidingIsIPv4 = input.ipv4.isUsable
            deciding = input.ipv4.isUsable ? input.ipv4 : input.ipv6.isUsable ? input.ipv6 : nil
            device = deciding?.route.flatMap { input.networkManager?.device(kernelName: $0.outgoingInterface) }
        }

        var pathInterface: String { deciding?.route?.outgoingInterface ?? "" }
        var deviceIsControlled: Bool { device?.isControlled ?? false }

        /// Dconn: the device's connectivity for the deciding family, UNKNOWN unless the check is live.
        var deviceConnectivity: NMConnectivityState {
            guard let device, input.networkManager?.connectivityCheckIsLive == true else { return .unknown }
            return decidingIsIPv4 ? device.ip4Connectivity : device.ip6Connectivity
        }

        func details(overrideRule: String?, since: UInt64?) -> ReachabilityDetails {
            var details = ReachabilityDetails()
            if let nm = input.networkManager {
                details.networkManagerState = nm.state.rawValue
                details.networkManagerConnectivity = nm.connectivity.rawValue
                details.networkManagerCheckLive = nm.connectivityCheckIsLive
                details.networkManagerStartup = nm.startup
                details.networkManagerMetered = nm.metered.rawValue
                if kernelOK { details.pathDeviceControlled = deviceIsControlled }
            } else if let connman = input.connman {
                details.connmanState = connman.state
                details.connmanOfflineMode = connman.offlineMode
                let service = connman.defaultService ?? connman.connectingService ?? connman.failedService
                details.connmanServiceType = service?.type
                details.connmanServiceState = service?.state
                details.connmanServiceError = service.flatMap { $0.error.isEmpty ? nil : $0.error }
                if input.ipv4.isLinkLocalOnly || (input.ipv4.isUsable && connman.service(
                    interface: input.ipv4.route?.outgoingInterface ?? "")?.hasIPv4LinkLocalOnly == true) {
                    details.connmanIPv4LinkLocal = true
                }
            } else if let networkd = input.networkd, networkd.isSource {
                details.networkdOnlineState = networkd.onlineState
                details.networkdLinkOnlineStates = networkd.linkOnlineStates
            }
            details.path4 = ReachabilityDetails.Path(input.ipv4)
            details.path6 = ReachabilityDetails.Path(input.ipv6)
            details.overrideRule = overrideRule
            details.overrideSinceMicroseconds = overrideRule == nil ? nil : since
            return details
        }
    }

    private static func evaluate(_ facts: Facts, timedRows: Bool) -> ReachabilityDecision {
        let input = facts.input
        // R0
        guard let nm = input.networkManager else {
            if let connman = input.connman { return evaluate(connman: connman, facts, timedRows: timedRows) }
            guard let networkd = input.networkd, networkd.isSource else { return ReachabilityDecision(facts.kernel, .r0) }
            return ReachabilityDecision(PublishedReachability(
                kernelPath4: input.ipv4, kernelPath6: input.ipv6, networkd: networkd,
                hasEligibleLink: input.hasEligibleLink), .r0)
        }
        let n = PublishedReachability(networkManager: nm)
        let state = nm.state
        let connected = state == .connectedSite || state == .connectedGlobal
        let connecting = state == .connecting || state == .disconnecting

        guard input.overrides else {
            // reachd before the cross-check: the kernel while NetworkManager starts, then its word.
            if nm.startup { return ReachabilityDecision(facts.kernel, .r1) }
            let rule: Rule = state == .asleep ? .r2 : nm.connectivity == .portal ? .r3
                : connected ? .r7 : connecting ? .r10 : .r13
            return ReachabilityDecision(n, rule)
        }

        // R1: a (re)starting NetworkManager's transient DISCONNECTED is not published over an intact path.
        if nm.startup, state.rawValue < NMState.connectedSite.rawValue, facts.kernelOK {
            return ReachabilityDecision(facts.kernel, .r1)
        }
        // R2: networking off or suspending: the user's intent, never overridden.
        if state == .asleep { return ReachabilityDecision(n, .r2) }

        let uncontrolledPath = facts.kernelOK && !facts.deviceIsControlled
        // R3: a captive portal is never upgraded to plain Reachable.
        if nm.connectivity == .portal || (facts.device != nil && facts.deviceConnectivity == .portal) {
            var value = n
            value.unsatisfiedReason = .portal
            if !connected, !connecting, uncontrolledPath {
                let flags = facts.kernel.flags.union([.connectionRequired, .interventionRequired])
                value = PublishedReachability(
                    status: NetworkReachabilityStatus(flags: flags), flags: flags,
                    interfaceType: facts.kernel.interfaceType, interface: facts.kernel.interface,
                    metered: facts.kernel.metered, connectivity: .portal, backend: .networkmanager,
                    source: .netlinkOverride, unsatisfiedReason: .portal)
            }
            return ReachabilityDecision(value, .r3)
        }

        if connected {
            let verdicts = [input.ipv4.verdict, input.ipv6.verdict]
            // R4: a kill switch, or no route at all, while NetworkManager says connected.
            if timedRows, verdicts.allSatisfy({ $0 == .blocked || $0 == .noRoute }) {
                return ReachabilityDecision(lowered(n, verdicts.contains(.blocked) ? .blocked : .noRoute), .r4)
            }
            // R5: the carrier is gone before NetworkManager noticed (it keeps State 70 for seconds).
            if timedRows, verdicts.contains(.linkDown), verdicts.allSatisfy({ $0 == .linkDown || $0 == .noRoute }) {
                return ReachabilityDecision(lowered(n, .noLink), .r5)
            }
            // R6: NetworkManager's reachability over the path the kernel really takes.
            if facts.kernelOK { return ReachabilityDecision(refined(n, facts: facts, networkManager: nm), .r6) }
            // R7: NetworkManager may be a few milliseconds ahead of the kernel.
            return ReachabilityDecision(n, .r7)
        }

        let checkFailed = facts.deviceConnectivity == .none
        let raisable = uncontrolledPath && !nm.vpnActivating && !checkFailed
        // R8, R9: a path over a device NetworkManager cannot touch does not depend on what it says.
        if timedRows, raisable {
            return ReachabilityDecision(raised(facts), connecting ? .r9 : .r8)
        }
        // R10: the route may belong to the connection NetworkManager is activating.
        if connecting { return ReachabilityDecision(n, .r10) }
        // R11: NetworkManager's own device, which it says is not ready.
        if facts.kernelOK, facts.deviceIsControlled {
            var value = n
            value.unsatisfiedReason = .noRoute
            return ReachabilityDecision(value, .r11)
        }
        // R12: NetworkManager probed that very interface and got nothing.
        if uncontrolledPath, facts.device != nil, checkFailed {
            var value = n
            value.unsatisfiedReason = .checkFailed
            return ReachabilityDecision(value, .r12)
        }
        // R13
        var value = n
        if !facts.kernelOK, input.ipv4.verdict == .linkDown || input.ipv6.verdict == .linkDown {
            value.unsatisfiedReason = .noLink
        }
        return ReachabilityDecision(value, .r13)
    }

    /// R4, R5: Not Reachable; NetworkManager's Connectivity and Metered stay.
    private static func lowered(_ n: PublishedReachability, _ reason: UnsatisfiedReason) -> PublishedReachability {
        PublishedReachability(
            status: .notReachable, flags: [], interfaceType: .none, interface: "", metered: n.metered,
            connectivity: n.connectivity, backend: .networkmanager, source: .netlinkOverride,
            unsatisfiedReason: reason)
    }

    /// R8, R9: the kernel's path; Connectivity is the device's live check, never an invented one.
    private static func raised(_ facts: Facts) -> PublishedReachability {
        var value = facts.kernel
        value.backend = .networkmanager
        value.source = .netlinkOverride
        value.connectivity = Connectivity(facts.deviceConnectivity)
        return value
    }

    /// R6: the interface, InterfaceType and medium bits of the kernel's path when it leaves by
    /// another interface than NetworkManager's primary one (wg-quick over NetworkManager's
    /// Wi-Fi), and IsDirect from the path always.
    private static func refined(
        _ n: PublishedReachability, facts: Facts, networkManager nm: NetworkManagerSnapshot
    ) -> PublishedReachability {
        var value = n
        let kernelFlags = facts.kernel.flags
        let medium: ReachabilityFlags = [.transientConnection, .isWWAN]
        let primary = nm.primaryDevices.first?.publishedInterface ?? ""
        if facts.pathInterface != primary {
            value.flags.subtract(medium)
            value.flags.formUnion(kernelFlags.intersection(medium))
            value.interface = facts.kernel.interface
            value.interfaceType = facts.kernel.interfaceType
        }
        value.flags.remove(.isDirect)
        value.flags.formUnion(kernelFlags.intersection(.isDirect))
        value.status = NetworkReachabilityStatus(flags: value.flags)
        if value != n { value.source = .networkManagerRefined }
        return value
    }
}
