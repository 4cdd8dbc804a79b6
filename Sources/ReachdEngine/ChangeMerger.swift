import Glibc
import Logging
import ReachdCore

/// The one place where reachd's sources meet: every source event comes in
/// here, the next published value is computed from everything known, compared
/// with the last computed value, and only a value that differs is announced
/// (after the settle time, when one is set).
///
/// Because the comparison comes first, an event that changes nothing (a
/// kernel address change while NetworkManager decides) neither announces nor
/// restarts the settle timer, so a chatty kernel cannot postpone a real change.
///
/// The value is `ReachabilityDecision`'s: NetworkManager's word checked against
/// the kernel's paths of both families, evaluated on every NetworkManager
/// change and every kernel change. An override of NetworkManager takes effect
/// only once the disagreement has held for the override delay (one timer,
/// armed only while a disagreement is pending; its firing is one more event),
/// and ends at once when the disagreement stops. While a loss of the path
/// waits out the delay the last value stands whole, so that no published set
/// mixes the source's word with the kernel's facts that contradict it (one
/// snapshot per change, contract 6 §2).
///
/// A kernel view that could not be read (the kernel did not answer a route
/// lookup) is not a value: the last computed value stands, the failure is
/// logged once, and the computation is retried with a bounded backoff.
///
/// ```swift
/// let merger = ChangeMerger(settle: .milliseconds(500), crossCheck: .standard, logger: logger,
///                           kernelPaths: { try reader.read() },
///                           start: { publisher.setInitial($0) },
///                           announce: { await publish($0) },
///                           sourcesChanged: { reevaluateMonitors() })
/// await merger.receive(.networkManager(snapshot))
/// ```
actor ChangeMerger {
    /// What the sources report, in the order it happened.
    enum Event: Sendable {
        /// NetworkManager's state, or nil when it is absent.
        case networkManager(NetworkManagerSnapshot?)
        /// systemd-networkd's state, or nil when it is absent (it counts only without NetworkManager).
        case networkd(NetworkdSnapshot?)
        /// ConnMan's state, or nil when it is absent (it counts only without NetworkManager).
        case connman(ConnManSnapshot?)
        /// A link, address or route changed in the kernel.
        case kernelChanged
        /// A pending disagreement may have held long enough.
        case overrideTimer
        /// The machine woke from sleep: look at everything again (host monitors re-resolve
        /// their names; addresses from before may belong to another network).
        case resumed
        /// reachd's own connectivity check's verdict over the paths `key` names.
        case reachdCheck(CheckPaths.PathKey, ConnectivityCheckResult)
        /// A change of link quality held back (`LinkQualityHold`) may be published now.
        case linkQualityTimer
        /// ModemManager's modems' signals, or nil when it is absent.
        case modemManager(ModemSignals?)
        /// There is no system bus to watch (none configured or reachable, or it went away): no
        /// network daemon can come, which makes `online` provably out of reach with the kernel alone.
        case noSystemBus
        /// The system bus's socket is not there yet (its path), or is there again (nil): a boot.
        case systemBusAwaited(String?)
    }

    /// How NetworkManager is checked against the kernel (`--no-override`, `--override-delay-ms`).
    struct CrossCheck: Sendable, Equatable {
        var overrides: Bool
        var delay: Duration
        static let standard = CrossCheck(overrides: true, delay: .seconds(1))
    }

    /// The kernel's paths of both families, with the path API's facts read alongside.
    typealias KernelPaths = @Sendable () throws(RouteLookupFailure) -> PathFactsReader.Reading

    private let settle: Duration
    private let crossCheck: CrossCheck
    private let logger: Logger
    private let kernelPaths: KernelPaths
    private let start: @Sendable (PublishedReachability) -> Void
    private let announce: @Sendable (PublishedReachability) async -> Void
    private let sourcesChanged: @Sendable () -> Void

    /// NetworkManager's last word; meaningful once `heardNetworkManager`.
    private var networkManager: NetworkManagerSnapshot?
    private var heardNetworkManager = false
    /// systemd-networkd's last word, nil while it is absent.
    private var networkd: NetworkdSnapshot?
    /// ConnMan's last word, nil while it is absent.
    private var connman: ConnManSnapshot?
    /// The last value computed (published, or waiting out the settle time).
    private var computed: PublishedReachability?
    /// The kernel's paths and facts as last read, until the kernel says something changed:
    /// a NetworkManager change reuses them instead of reading every link again (that read
    /// cost about a millisecond on each NetworkManager signal).
    private var kernelReading: PathFactsReader.Reading?
    private var settling: Task<Void, Never>?
    private var backoff = RetryBackoff()
    private var retry: Task<Void, Never>?
    private var firstValueWaiters: [CheckedContinuation<PublishedReachability, Never>] = []
    /// reachd's own check: its last verdict (applied only over the paths it was made for), where
    /// its paths are told, the last told, and the resumes so far.
    private var reachdCheck: (key: CheckPaths.PathKey, result: ConnectivityCheckResult)?
    private var checkPaths: AsyncStream<CheckPaths>.Continuation?
    private var toldCheckPaths: CheckPaths?
    private var resumes = 0

    /// A disagreement with NetworkManager that a timed row describes: since when, and which way.
    private struct Disagreement {
        var raises: Bool
        var since: ContinuousClock.Instant
        var sinceMicroseconds: UInt64
    }
    private var disagreement: Disagreement?
    private var overrideTimer: Task<Void, Never>?
    /// The override in effect, for the log lines that mark its start and end.
    private var overriding: ReachabilityDecision.Rule?
    /// Link quality as published, and the timer armed while a change of it is held back.
    private var noSystemBus = false
    /// The system bus's socket while it is waited for.
    private var systemBusAwaited: String?
    /// ModemManager's last word, nil while it is absent (only link quality reads it).
    private var modems: ModemSignals?
    private var linkQuality = LinkQualityHold()
    private var linkQualityTimer: Task<Void, Never>?
    /// The kernel's measurements of the path's link, until the kernel says something changed
    /// (a new speed comes with a link event): a source's signal does not read sysfs again.
    private var kernelMeasurements: (interface: String, inputs: LinkQualityInputs)?

    /// `start` receives the first value (before the bus name is claimed, so it
    /// is set, not announced); `announce` each later one; `sourcesChanged` is
    /// told of every source event once the first value is known (host monitors
    /// follow the sources themselves).
    init(
        settle: Duration, crossCheck: CrossCheck = .standard, logger: Logger, kernelPaths: @escaping KernelPaths,
        start: @escaping @Sendable (PublishedReachability) -> Void,
        announce: @escaping @Sendable (PublishedReachability) async -> Void,
        sourcesChanged: @escaping @Sendable () -> Void
    ) {
        // reachd's options stop at a year (OptionRange); any other caller gets the same bounds
        // rather than a trap where a timer converts a longer Duration.
        func bounded(_ duration: Duration) -> Duration { min(max(duration, .zero), OptionRange.longestDuration) }
        self.settle = bounded(settle)
        self.crossCheck = CrossCheck(overrides: crossCheck.overrides, delay: bounded(crossCheck.delay))
        self.logger = logger
        self.kernelPaths = kernelPaths
        self.start = start
        self.announce = announce
        self.sourcesChanged = sourcesChanged
    }

    deinit {
        settling?.cancel()
        retry?.cancel()
        overrideTimer?.cancel()
        linkQualityTimer?.cancel()
    }

    /// Takes one source event.
    func receive(_ event: Event) async {
        switch event {
        case .networkManager(let snapshot):
            networkManager = snapshot
            heardNetworkManager = true
        case .networkd(let snapshot):
            networkd = snapshot
            guard heardNetworkManager else { return }
        case .connman(let snapshot):
            connman = snapshot
            guard heardNetworkManager else { return }
        case .reachdCheck(let key, let result):
            reachdCheck = (key, result)
            guard heardNetworkManager else { return }
        case .kernelChanged, .resumed:
            if case .resumed = event { resumes += 1 }
            kernelReading = nil
            kernelMeasurements = nil
            // The first value needs NetworkManager's first word (or its absence).
            guard heardNetworkManager else { return }
        case .overrideTimer:
            overrideTimer = nil
            guard heardNetworkManager else { return }
            return await recompute()
        case .linkQualityTimer:
            linkQualityTimer = nil
            guard heardNetworkManager else { return }
            return await recompute()
        case .noSystemBus:
            noSystemBus = true
            guard heardNetworkManager else { return }
        case .systemBusAwaited(let socket):
            systemBusAwaited = socket
            if socket != nil { noSystemBus = false }
            guard heardNetworkManager else { return }
        case .modemManager(let signals):
            modems = signals
            guard heardNetworkManager else { return }
        }
        let started = computed != nil
        await recompute()
        if started { sourcesChanged() }
    }

    /// The first value, once the sources have given enough to compute it.
    func firstValue() async -> PublishedReachability {
        if let computed { return computed }
        return await withCheckedContinuation { firstValueWaiters.append($0) }
    }

    /// Tells `continuation` the paths reachd's own check runs over, after every evaluation that
    /// changes them (or NetworkManager's check, or a resume).
    func followCheckPaths(_ continuation: AsyncStream<CheckPaths>.Continuation) {
        checkPaths = continuation
        toldCheckPaths = nil
    }

    /// Stops the settle, retry and override timers (the service is ending).
    func stop() {
        checkPaths?.finish()
        settling?.cancel()
        retry?.cancel()
        overrideTimer?.cancel()
        linkQualityTimer?.cancel()
    }

    private func recompute() async {
        let reading: PathFactsReader.Reading
        if let kernelReading {
            reading = kernelReading
        } else {
            do {
                reading = try kernelPaths()
            } catch {
                noteFailure(error)
                return
            }
            kernelReading = reading
        }
        // --no-override: NetworkManager's word as it is; the kernel's paths only
        // feed the path API's facts.
        let crossChecked = networkManager.map { crossCheck.overrides || $0.startup } ?? true
        let paths = crossChecked ? (ipv4: reading.ipv4, ipv6: reading.ipv6) : (ipv4: KernelPath.none, ipv6: KernelPath.none)
        retry?.cancel()
        retry = nil
        if backoff.reset() { logger.notice("the kernel answers route lookups again") }

        let decision = decide(paths, hasEligibleLink: reading.hasEligibleLink)
        noteOverride(decision, paths: paths)
        var value = decision.published
        if value.status != .unknown {
            value.path = reading.facts.excludingLinkLocalOnly(ipv4: reading.ipv4, ipv6: reading.ipv6)
            value.path.connectivityChecked = networkManager?.connectivityCheckIsLive ?? false
            if value.backend == .systemdNetworkd, let networkd { value.path = value.path.withMedia(of: networkd) }
            if value.backend == .connman, let connman {
                value.path = value.path.withMedia(of: connman, published: value.interfaceType)
                // ConnMan's `online` is its own HTTP check passing (EnableOnlineCheck).
                value.path.connectivityChecked = value.connectivity == .full
            }
        }
        // Who checks connectivity: NetworkManager where its check is live, else reachd's own
        // (its verdict enters as NetworkManager's does, and only over the paths it was made for).
        // ConnMan's `online` counts as a check that passed; its `ready` (no check, or one that
        // failed) leaves the answer to reachd's own check where one is configured.
        let connmanChecked = networkManager == nil && value.backend == .connman && connman?.isOnline == true
        let pathsToCheck = CheckPaths(ipv4: .init(reading.ipv4), ipv6: .init(reading.ipv6),
                                      networkManagerChecks: (networkManager?.connectivityCheckIsLive ?? false) || connmanChecked,
                                      resumes: resumes)
        if value.status != .unknown {
            // Who could still say `full` here: what `wait --level online` waits for, or knows
            // it never will (contract 6, §2).
            value.details.checkRunners = ConnectivityCheckRunner.running(
                networkManager: networkManager, connman: connman, reachdCheckConfigured: checkPaths != nil)
            if noSystemBus { value.details.noSystemBus = true }
            value.details.systemBusAwaited = systemBusAwaited
            if connmanChecked {
                value.details.checkSource = "connman"
            } else if pathsToCheck.networkManagerChecks {
                value.details.checkSource = "networkmanager"
            } else if let reachdCheck, reachdCheck.key == pathsToCheck.key {
                value = value.checked(by: reachdCheck.result)
            } else if checkPaths != nil, value.flags.contains(.reachable) {
                // reachd's own check is on and will run over these paths: not "no check", only
                // "no verdict yet" (reachctl wait --level online waits for it).
                value.details.checkPending = true
            }
        }
        gradeLinkQuality(of: &value)
        if let checkPaths, pathsToCheck != toldCheckPaths {
            toldCheckPaths = pathsToCheck
            checkPaths.yield(pathsToCheck)
        }

        // One snapshot per change (contract 6, §2): while the kernel's loss of the path waits out
        // the delay, the source's word it contradicts is not published beside the kernel's facts
        // (Status Reachable, Level routable, no gateway): the last value stands whole, and after
        // the delay the override is one change.
        if let pending = decision.pending, !pending.raisesReachability, let computed { value = computed }

        guard value != computed else { return }
        guard computed != nil else {
            computed = value
            start(value)
            firstValueWaiters.forEach { $0.resume(returning: value) }
            firstValueWaiters = []
            return
        }
        computed = value
        settling?.cancel()
        settling = nil
        if settle == .zero {
            await announce(value)
        } else {
            settling = Task { [settle] in
                guard (try? await Task.sleep(for: settle)) != nil else { return }
                await self.announceSettled()
            }
        }
    }

    /// Evaluates the decision table, tracking how long a disagreement has held
    /// and arming the override timer while one is pending.
    private func decide(_ paths: (ipv4: KernelPath, ipv6: KernelPath), hasEligibleLink: Bool) -> ReachabilityDecision {
        let now = ContinuousClock.now
        func evaluate() -> ReachabilityDecision {
            ReachabilityDecision(.init(
                networkManager: networkManager, ipv4: paths.ipv4, ipv6: paths.ipv6,
                overrides: crossCheck.overrides, delay: crossCheck.delay,
                disagreementHeld: disagreement.map { now - $0.since },
                disagreementSinceMicroseconds: disagreement?.sinceMicroseconds,
                networkd: networkd, hasEligibleLink: hasEligibleLink, connman: connman))
        }
        var decision = evaluate()
        let timed = decision.pending ?? (decision.rule.isTimed ? decision.rule : nil)
        guard let timed else {
            disagreement = nil
            overrideTimer?.cancel()
            overrideTimer = nil
            return decision
        }
        if disagreement?.raises != timed.raisesReachability {
            // The kernel's answer already published (NetworkManager away or
            // restarting) is not a change to debounce: keeping it avoids a flap.
            let kernelPublished = computed?.source == .netlink || computed?.source == .netlinkOverride
            let held = timed.raisesReachability && kernelPublished && computed?.reachable == true
            // Nor is a loss of the path the kernel shows before anything was published: there is
            // no last value to stand meanwhile, and the source's word would contradict the
            // kernel's facts beside it.
                || !timed.raisesReachability && computed == nil
            disagreement = Disagreement(
                raises: timed.raisesReachability, since: held ? now - crossCheck.delay : now,
                sinceMicroseconds: Self.monotonicMicroseconds())
            decision = evaluate()
        }
        overrideTimer?.cancel()
        overrideTimer = nil
        if let remaining = decision.pendingRemaining {
            overrideTimer = Task {
                guard (try? await Task.sleep(for: remaining)) != nil else { return }
                await self.receive(.overrideTimer)
            }
        }
        return decision
    }

    /// Grades the published path's link (docs/mapping.md, "Link quality"): its measurements go into
    /// `Details`, its grade into `LinkQuality`, a change of grade on the same link at most once per
    /// `LinkQualityHold.minimum` (one timer, armed only while a change waits).
    private func gradeLinkQuality(of value: inout PublishedReachability) {
        let interface = value.interface, type = value.interfaceType
        let inputs = LinkQualityInputs.ofPath(value, networkManager: networkManager, connman: connman, modems: modems) {
            if let kernelMeasurements, kernelMeasurements.interface == interface { return kernelMeasurements.inputs }
            let measured = LinkMeasurementReader.measurements(of: interface, type: type)
            kernelMeasurements = (interface, measured)
            return measured
        }
        value.details.linkSignal = inputs.signalPercent
        value.details.linkSignalSource = inputs.signalSource?.rawValue
        value.details.linkSpeedMegabits = inputs.ethernetSpeedMegabits
        let graded = inputs.graded(for: value.interfaceType, previous: linkQuality.previous(for: value.interface))
        let (quality, wait) = linkQuality.decide(graded, interface: value.interface, now: .now)
        value.linkQuality = quality
        linkQualityTimer?.cancel()
        linkQualityTimer = nil
        if let wait {
            linkQualityTimer = Task {
                guard (try? await Task.sleep(for: wait)) != nil else { return }
                await self.receive(.linkQualityTimer)
            }
        }
    }

    /// One notice line when an override starts, one when it ends (contract 2, §1.5).
    private func noteOverride(_ decision: ReachabilityDecision, paths: (ipv4: KernelPath, ipv6: KernelPath)) {
        let now: ReachabilityDecision.Rule? = decision.published.source == .netlinkOverride ? decision.rule : nil
        guard now != overriding else { return }
        let networkdSays = decision.published.backend == .systemdNetworkd ? networkd.map { "systemd-networkd says \($0.onlineState)" } : nil
        let connmanSays = decision.published.backend == .connman ? connman.map { "ConnMan says \($0.state)" } : nil
        let says = networkManager.map { "NetworkManager says \($0.state)" } ?? networkdSays ?? connmanSays ?? "NetworkManager is gone"
        if let now {
            let path = paths.ipv4.isUsable ? paths.ipv4 : paths.ipv6
            let kernel: String
            if decision.published.reachable || decision.published.flags.contains(.reachable) {
                let interface = path.route?.outgoingInterface ?? "?"
                let device = networkManager?.device(kernelName: interface)
                let control = networkdSays != nil ? "not managed by systemd-networkd"
                    : connmanSays != nil ? "no ConnMan service"
                    : device == nil ? "not known to NetworkManager"
                    : device!.isExternal ? "configured outside NetworkManager" : "unmanaged"
                kernel = "the kernel routes \(path.gateway.map { "via \($0) " } ?? "")over \(interface) (\(control))"
            } else {
                kernel = "the kernel's path is \(decision.published.unsatisfiedReason.rawValue)"
            }
            logger.notice("\(says) but \(kernel): publishing \(decision.published.statusString) (\(now.rawValue))")
        } else if let ended = overriding {
            logger.notice("override \(ended.rawValue) ended (\(says)): publishing \(decision.published.statusString) (\(decision.rule.rawValue))")
        }
        overriding = now
    }

    /// CLOCK_MONOTONIC in microseconds, as `Details` reports when an override began.
    private static func monotonicMicroseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000 + UInt64(time.tv_nsec) / 1_000
    }

    private func announceSettled() async {
        settling = nil
        if let computed { await announce(computed) }
    }

    private func noteFailure(_ error: RouteLookupFailure) {
        if !backoff.isFailing {
            logger.warning("could not read the kernel's paths (\(error)); keeping the last state and retrying")
        }
        guard retry == nil else { return }
        let delay = backoff.next()
        retry = Task {
            guard (try? await Task.sleep(for: delay)) != nil else { return }
            await self.retryNow()
        }
    }

    private func retryNow() async {
        retry = nil
        await recompute()
    }
}
