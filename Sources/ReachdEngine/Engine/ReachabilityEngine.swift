import ReachdDBus
import ReachdEventLoops
import Glibc
import Logging
import ReachdCore
import Synchronization

/// reachd's engine: the sources (NetworkManager, systemd-networkd, ConnMan, the kernel, reachd's own
/// connectivity check), the change merger and the host monitors, without any front end.
///
/// Two front ends use it (contract 4, §3.1; docs/design.md, "The change path"): reachd exports
/// what it computes on a bus under its name, and the client library runs it in the app's own
/// process when no reachd shares the app's network namespace. Both see the same values: the
/// engine hands each to `announce` (after `initial`, the first), and host monitors' reports to
/// the front end's `HostMonitorSink`.
///
/// ```swift
/// let engine = try ReachdEngine(configuration: EngineConfiguration(), logger: logger, loop: loop,
///                                     hostSink: sink, initial: { first in … }, announce: { value in … })
/// let first = await engine.start()
/// …
/// await engine.stop()
/// ```
package final class ReachdEngine: Sendable {
    /// The host monitors, for the front end's `ManagerFor*`, `CheckHost` and `Release`.
    package let hosts: HostMonitorRegistry
    /// `CheckConnectivity()`.
    package let checker: ConnectivityChecker

    private let configuration: EngineConfiguration
    private let logger: Logger
    private let loop: EventLoop
    private let merger: ChangeMerger
    private let resolver: Resolver
    private let defaultRoutes: DefaultRouteSet
    private let current: CurrentValue
    private let running = Mutex<[Task<Void, Never>]>([])

    /// `loop`: where the engine's sockets are watched (the netlink socket, the system bus
    /// connection, the check's socket). `initial` gets the first value, `announce` each later one,
    /// in order.
    package init(
        configuration: EngineConfiguration, logger: Logger, loop: EventLoop, hostSink: any HostMonitorSink,
        initial: @escaping @Sendable (PublishedReachability) -> Void,
        announce: @escaping @Sendable (PublishedReachability) async -> Void
    ) throws {
        self.configuration = configuration
        self.logger = logger
        self.loop = loop
        let current = CurrentValue()
        self.current = current
        let routes = try RouteLookup()
        let defaultRoutes = DefaultRouteSet()
        self.defaultRoutes = defaultRoutes
        let paths = KernelPathFinder(routes: routes, probes: Self.probes(configuration), defaultRoutes: defaultRoutes)
        // One fair resolver for host monitors and reachd's own connectivity check.
        let resolver = Resolver()
        self.resolver = resolver
        let hosts = HostMonitorRegistry(
            evaluator: HostEvaluator(routes: routes, paths: paths, resolver: resolver),
            limits: .init(perClient: configuration.maximumMonitorsPerClient, total: configuration.maximumMonitors),
            logger: logger, sink: hostSink, portal: { current.value.connectivity == .portal },
            networkIsUp: { current.value.status.isReachable })
        self.hosts = hosts
        checker = ConnectivityChecker(current: { current.value })
        merger = ChangeMerger(
            settle: configuration.settle,
            crossCheck: .init(overrides: configuration.overrides, delay: configuration.overrideDelay), logger: logger,
            kernelPaths: { [reader = PathFactsReader(paths: paths, routes: routes, defaultRoutes: defaultRoutes)]
                () throws(RouteLookupFailure) in try reader.read() },
            start: { value in
                current.value = value
                initial(value)
            },
            announce: { value in
                current.value = value
                await announce(value)
            },
            sourcesChanged: { Task { await hosts.reevaluate() } })
    }

    /// The value computed last (Unknown before the first).
    package var value: PublishedReachability { current.value }

    /// Resolver threads alive now: 0 while no lookup is running or was run recently.
    package var resolverThreads: Int { resolver.threadCount }

    /// Starts every source and returns the first value, once NetworkManager's first word (or its
    /// absence) and the kernel's paths are in.
    package func start() async throws -> PublishedReachability {
        var tasks: [Task<Void, Never>] = []
        // reachd's own check, only with a URI: follows the merger's paths, reports to it.
        if let checkConfiguration = configuration.connectivityCheck {
            let merger = merger
            let check = ReachdConnectivityCheck(
                loop: loop, configuration: checkConfiguration, resolver: resolver, logger: logger,
                report: { key, result in await merger.receive(.reachdCheck(key, result)) })
            let (checkPaths, continuation) = AsyncStream.makeStream(of: CheckPaths.self, bufferingPolicy: .bufferingNewest(1))
            await merger.followCheckPaths(continuation)
            await checker.useOwnCheck(check)
            tasks.append(Task { await check.follow(checkPaths) })
            logger.info("connectivity check: \(checkConfiguration.uri) where NetworkManager does not check")
        }
        let kernelChanges = try await NetlinkChangeMonitor(
            loop: loop, defaultRoutes: defaultRoutes, allRouteEvents: configuration.allRouteEvents).changes()
        // A resume (logind's, or seen in the clocks) has NetworkManager and ConnMan read again.
        let (resyncs, networkManagerResync) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let (connmanResyncs, connmanResync) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let resync: @Sendable () -> Void = {
            networkManagerResync.yield()
            connmanResync.yield()
        }
        // Kernel link events have systemd-networkd's links listed again (its DescribeLink sends no signal).
        let (linkChanges, linkChanged) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        tasks.append(Task {
            await watchNetworkManager(resyncs: resyncs, resync: resync, networkdLinkChanges: linkChanges,
                                      connmanResyncs: connmanResyncs)
        })
        tasks.append(Task { await forwardKernelChanges(kernelChanges, resync: resync, linksChanged: linkChanged) })
        running.withLock { $0 += tasks }
        return await merger.firstValue()
    }

    /// Stops the sources and the timers.
    package func stop() async {
        await merger.stop()
        let tasks = running.withLock { running in
            defer { running = [] }
            return running
        }
        tasks.forEach { $0.cancel() }
    }

    /// The probe addresses the configuration names (validated by the front end).
    private static func probes(_ configuration: EngineConfiguration) -> KernelPathFinder.Probes {
        var probes = KernelPathFinder.Probes.standard
        if let text = configuration.probeIPv4, let address = IPAddress(strict: text) {
            probes.ipv4 = [address]
            probes.named.insert(.v4)
        }
        if let text = configuration.probeIPv6, let address = IPAddress(strict: text) {
            probes.ipv6 = [address]
            probes.named.insert(.v6)
        }
        return probes
    }

    /// Hands kernel changes to the merger: each at once while they come singly or in a short
    /// burst (a bring-up's link, address and route), at most four evaluations a second under
    /// sustained churn (`ChangePacing`): a change beyond the budget waits for the next token (the
    /// stream keeps only the newest), so a routing daemon rewriting thousands of routes a second
    /// costs four evaluations a second, and a quiet kernel costs nothing (no timer is armed).
    private func forwardKernelChanges(_ changes: AsyncStream<Void>, resync: (@Sendable () -> Void)? = nil,
                                      linksChanged: AsyncStream<Void>.Continuation? = nil) async {
        var pacing = ChangePacing()
        // Without logind, a resume shows as the boot-time clock having run ahead; links
        // coming back after a sleep are kernel changes, so they are where it is seen.
        var sleeps = SuspendDetector()
        for await _ in changes {
            let wait = pacing.delay(at: .now)
            if wait > .zero {
                guard (try? await Task.sleep(for: wait)) != nil else { return }
            }
            linksChanged?.yield()
            if sleeps.sleptSinceLastCheck(bootTime: Self.clock(CLOCK_BOOTTIME), monotonic: Self.clock(CLOCK_MONOTONIC)) {
                logger.info("resume: resynchronising (the boot-time clock ran ahead: the machine slept)")
                resync?()
                await merger.receive(.resumed)
            } else {
                await merger.receive(.kernelChanged)
            }
        }
    }

    /// Reports NetworkManager's state, nil while it is absent (or there is no system bus at all),
    /// and has systemd-networkd and ConnMan followed on the same bus. A system bus that is not
    /// there yet (a boot) is waited for, and one that goes away is waited for again: meanwhile
    /// the kernel answers alone, and `online` is not ruled out (a network daemon may yet come).
    private func watchNetworkManager(resyncs: AsyncStream<Void>, resync: @escaping @Sendable () -> Void,
                                     networkdLinkChanges: AsyncStream<Void> = AsyncStream { $0.finish() },
                                     connmanResyncs: AsyncStream<Void> = AsyncStream { $0.finish() }) async {
        guard configuration.usesSystemBus else {
            await merger.receive(.noSystemBus)
            await merger.receive(.networkManager(nil))
            return
        }
        let arrival = SystemBusArrival(address: configuration.systemBusAddress ?? Connection.systemBusAddress,
                                       loop: loop, logger: logger)
        var lost: FileAppearance.Identity?
        var awaited = false
        // A bus that drops reachd at once, again and again (a limit it hits), is tried again at
        // a growing interval, not in a loop.
        var drops = RetryBackoff(first: .seconds(1), limit: .seconds(30))
        while true {
            let outcome = await arrival.connect(replacing: lost) { [logger, merger] socket in
                logger.notice("the system bus is not there yet (no bus at \(socket)): following the kernel's routes, and waiting for it")
                awaited = true
                await merger.receive(.systemBusAwaited(socket))
                await merger.receive(.networkManager(nil))
            }
            switch outcome {
            case .cancelled:
                return
            case .unavailable(let error):
                logger.warning("no system bus (\(error)); following the kernel's routes")
                await merger.receive(.noSystemBus)
                await merger.receive(.networkManager(nil))
                return
            case .connected(let system):
                if awaited {
                    logger.notice("the system bus is here: following its network daemons")
                    awaited = false
                    await merger.receive(.systemBusAwaited(nil))
                }
                lost = arrival.socket.flatMap(FileAppearance.identity(of:))
                let connected = ContinuousClock.now
                let followed = await follow(system, resyncs: resyncs, resync: resync, networkdLinkChanges: networkdLinkChanges,
                                            connmanResyncs: connmanResyncs)
                guard followed, !Task.isCancelled else { return }
                // What the daemons said is no longer known: the kernel answers until the bus is back.
                logger.warning("the system bus went away: following the kernel's routes until it is back")
                await merger.receive(.networkd(nil))
                await merger.receive(.connman(nil))
                await merger.receive(.modemManager(nil))
                await merger.receive(.networkManager(nil))
                guard arrival.socket != nil else {
                    await merger.receive(.noSystemBus)
                    return
                }
                if ContinuousClock.now - connected < .seconds(5) {
                    guard (try? await Task.sleep(for: drops.next())) != nil else { return }
                } else {
                    drops.reset()
                }
            }
        }
    }

    /// Follows the network daemons on `system` until it goes away (true) or following failed
    /// (false: reported to the merger as no system bus), and closes it.
    private func follow(_ system: Connection, resyncs: AsyncStream<Void>, resync: @escaping @Sendable () -> Void,
                        networkdLinkChanges: AsyncStream<Void>, connmanResyncs: AsyncStream<Void>) async -> Bool {
        let resumes = Task { await followResumes(on: system, resync: resync) }
        defer { resumes.cancel() }
        let networkd = await watchNetworkd(on: system, linkChanges: networkdLinkChanges)
        defer { networkd.cancel() }
        let connman = await watchConnMan(on: system, resyncs: connmanResyncs)
        defer { connman.cancel() }
        let modems = watchModemManager(on: system)
        defer { modems.cancel() }
        let backend = NetworkManagerBackend(bus: system, logger: logger, callTimeout: configuration.networkManagerCallTimeout)
        defer { Task { [checker] in await checker.attach(nil) } }
        var followed = true
        do {
            try await backend.run(resyncs: resyncs) { [logger, checker, merger] snapshot in
                if snapshot == nil { logger.notice("no word from NetworkManager (absent, or not answering yet); following the kernel's routes") }
                await checker.attach(snapshot == nil ? nil : system, checking: snapshot?.connectivityCheckIsLive ?? false)
                await merger.receive(.networkManager(snapshot))
            }
        } catch {
            logger.error("watching NetworkManager failed: \(error)")
            await merger.receive(.noSystemBus)
            await merger.receive(.networkManager(nil))
            followed = false
        }
        await system.close()
        return followed
    }

    /// Follows systemd-networkd on `system` (it counts only while NetworkManager is absent);
    /// returns once its first word (or its absence) is with the merger, so that the first
    /// value, which waits for NetworkManager's first word, already has it.
    private func watchNetworkd(on system: Connection, linkChanges: AsyncStream<Void>) async -> Task<Void, Never> {
        let (firstReport, reported) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let backend = NetworkdBackend(bus: system, logger: logger, callTimeout: configuration.networkManagerCallTimeout)
        let task = Task { [logger, merger] in
            do {
                try await backend.run(linkChanges: linkChanges) { snapshot in
                    if let snapshot, !snapshot.isSource {
                        logger.info("systemd-networkd is on the bus but has no OnlineState (no link is RequiredForOnline); not a source")
                    }
                    await merger.receive(.networkd(snapshot))
                    reported.yield()
                }
            } catch {
                logger.error("watching systemd-networkd failed: \(error)")
                await merger.receive(.networkd(nil))
            }
            reported.finish()
        }
        for await _ in firstReport { break }
        return task
    }

    /// Follows ModemManager on `system` for its modems' signals (link quality of a cellular path
    /// NetworkManager runs); nothing waits for its first word.
    private func watchModemManager(on system: Connection) -> Task<Void, Never> {
        let backend = ModemManagerBackend(bus: system, logger: logger, callTimeout: configuration.networkManagerCallTimeout)
        return Task { [logger, merger] in
            do {
                try await backend.run { signals in await merger.receive(.modemManager(signals)) }
            } catch {
                logger.error("watching ModemManager failed: \(error)")
                await merger.receive(.modemManager(nil))
            }
        }
    }

    /// Follows ConnMan on `system` (it counts only while NetworkManager is absent); returns once
    /// its first word (or its absence) is with the merger, as `watchNetworkd` does.
    private func watchConnMan(on system: Connection, resyncs: AsyncStream<Void>) async -> Task<Void, Never> {
        let (firstReport, reported) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let backend = ConnManBackend(bus: system, logger: logger, callTimeout: configuration.networkManagerCallTimeout)
        let task = Task { [logger, merger] in
            do {
                try await backend.run(resyncs: resyncs) { snapshot in
                    await merger.receive(.connman(snapshot))
                    reported.yield()
                }
            } catch {
                logger.error("watching ConnMan failed: \(error)")
                await merger.receive(.connman(nil))
            }
            reported.finish()
        }
        for await _ in firstReport { break }
        return task
    }

    private static func clock(_ id: clockid_t) -> Duration {
        var now = timespec()
        clock_gettime(id, &now)
        return .seconds(now.tv_sec) + .nanoseconds(now.tv_nsec)
    }

    /// After a sleep nothing seen before may hold: logind's `PrepareForSleep(false)` has
    /// NetworkManager read again, the kernel's paths recomputed and every host name
    /// resolved again, then all of it once more 5 s later (a resume settles in steps).
    /// Nothing is done before sleep: NetworkManager's ASLEEP and the links going down are
    /// the truth then. Without logind on the bus nothing arrives, at no cost.
    ///
    /// Only logind is believed: the connection passes the rule's sender only from the owner of
    /// `org.freedesktop.login1`, so a unicast `PrepareForSleep` from anyone else never arrives
    /// here. However many real ones arrive, rounds run at least `ResumeRounds.spacing` apart.
    private func followResumes(on system: Connection, resync: @escaping @Sendable () -> Void) async {
        guard let signals = try? await system.signals(matching: MatchRule(
            sender: "org.freedesktop.login1", interface: "org.freedesktop.login1.Manager",
            member: "PrepareForSleep", path: "/org/freedesktop/login1")) else { return }
        let rounds = Mutex(ResumeRounds())
        let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let pacer = Task { [logger, merger] in
            for await _ in wakes {
                while let due = rounds.withLock({ $0.due(after: .now) }) {
                    guard (try? await Task.sleep(until: due)) != nil else { return }
                    let which = rounds.withLock { $0.ran(at: .now) }
                    logger.info("resume: resynchronising (\(which))")
                    resync()
                    await merger.receive(.resumed)
                }
            }
        }
        defer { pacer.cancel() }
        for await signal in signals {
            guard case .boolean(false)? = signal.body.first else { continue }
            rounds.withLock { $0.woke() }
            wake.yield()
        }
    }
}

/// The last value computed, for the host monitors' questions (is there a portal, is the network
/// up) and the front end's reads.
private final class CurrentValue: Sendable {
    private let stored = Mutex(PublishedReachability.unknown)

    var value: PublishedReachability {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }
}
