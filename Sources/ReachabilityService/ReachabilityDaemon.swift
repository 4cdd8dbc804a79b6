import DBus
import Glibc
import EventLoops
import Logging
import ReachabilityContract
import ReachabilityCore

/// The bus reachd serves its name on.
public enum ServedBus: String, Sendable, Equatable {
    /// One user's session bus (`reachd`): the user's apps.
    case session
    /// The system bus (`reachd --system`): every local user, system services, machines with
    /// no session. Limits count per user there, not per connection.
    case system
}

/// How reachd runs: where the buses are, whether to take the name over.
public struct ReachabilityDaemonConfiguration: Sendable {
    /// The bus to serve on.
    public var bus: ServedBus
    public var replace: Bool
    /// The system bus to watch NetworkManager on; nil for the usual one.
    public var systemBusAddress: String?
    /// How long a change must hold before it is published (flap suppression).
    public var settle: Duration
    /// Host monitors one client may hold, and all clients together.
    /// (per connection on the session bus, per user on the system bus)
    public var maximumMonitorsPerClient: Int
    public var maximumMonitors: Int
    /// How long a call to NetworkManager may take before it counts as failed (and is retried).
    public var networkManagerCallTimeout: Duration
    /// Probe addresses standing for "the Internet" (nil: the documentation addresses).
    public var probeIPv4: String?
    public var probeIPv6: String?
    /// Hear every route change, routing daemons' too (`--route-events=all`).
    public var allRouteEvents: Bool
    /// Check NetworkManager against the kernel's paths and override it when they disagree
    /// (false: `--no-override`, NetworkManager's word as it is).
    public var overrides: Bool
    /// How long NetworkManager and the kernel must disagree before the kernel's answer is published.
    public var overrideDelay: Duration
    /// reachd's own connectivity check, nil when no URI is configured (then it opens no socket).
    public var connectivityCheck: ConnectivityCheckConfiguration?

    public init(
        bus: ServedBus = .session, replace: Bool = false, systemBusAddress: String? = nil, settle: Duration = .zero,
        maximumMonitorsPerClient: Int = 64, maximumMonitors: Int = 4096,
        networkManagerCallTimeout: Duration = .seconds(5),
        probeIPv4: String? = nil, probeIPv6: String? = nil, allRouteEvents: Bool = false,
        overrides: Bool = true, overrideDelay: Duration = .seconds(1),
        connectivityCheck: ConnectivityCheckConfiguration? = nil
    ) {
        self.bus = bus
        self.connectivityCheck = connectivityCheck
        self.overrides = overrides
        self.overrideDelay = overrideDelay
        self.probeIPv4 = probeIPv4
        self.probeIPv6 = probeIPv6
        self.allRouteEvents = allRouteEvents
        self.replace = replace
        self.systemBusAddress = systemBusAddress
        self.settle = settle
        self.maximumMonitorsPerClient = maximumMonitorsPerClient
        self.maximumMonitors = maximumMonitors
        self.networkManagerCallTimeout = networkManagerCallTimeout
    }
}

/// Why reachd stopped other than by being asked to.
public enum ReachabilityDaemonError: Error, CustomStringConvertible {
    case nameTaken(String)
    /// The served bus went away (on the session bus, usually the session ending).
    case busLost(ServedBus)

    public var description: String {
        switch self {
        case .nameTaken(let owner):
            "\(ReachabilityContract.busName) is already owned by \(owner); run with --replace to take it over"
        case .busLost(let bus):
            "the connection to the \(bus.rawValue) bus was lost"
        }
    }
}

/// The reachd service: publishes reachability on the session bus, or (`--system`) the system bus.
///
/// Start-up order matters: the object is exported and the first state read
/// from NetworkManager before the bus name is requested, so the first call
/// after the name appears gets a real answer, never a start-up Unknown.
///
/// The change path (docs/design.md, "The change path"): NetworkManager's
/// backend and the kernel's change monitor each call the one `ChangeMerger`,
/// which computes the published value, compares it and announces it through
/// the publisher, and tells the host monitors to look again.
public struct ReachabilityDaemon: Sendable {
    public static var busName: BusName { ReachabilityContract.busName }

    private let configuration: ReachabilityDaemonConfiguration
    private let logger: Logger
    private let loop: EventLoop?

    /// `loop`: the one loop to run both bus connections and the netlink
    /// socket on; nil gives each connection a loop thread of its own.
    public init(configuration: ReachabilityDaemonConfiguration, logger: Logger, loop: EventLoop? = nil) {
        self.configuration = configuration
        self.logger = logger
        self.loop = loop
    }

    private enum Ending { case shutdown, nameLost, sessionLost }

    /// Serves until `shutdown` is requested (returns), another instance takes
    /// the name over (returns), or the served bus is lost (throws).
    public func run(until shutdown: ShutdownRequest) async throws {
        // `session` is the served bus, whichever it is: the name below is the session
        // instance's, the code is the same for both.
        let session = try await configuration.bus == .system ? Connection.system(loop: loop) : Connection.session(loop: loop)
        let publisher = ReachabilityPublisher()
        let routes = try RouteLookup()
        let defaultRoutes = DefaultRouteSet()
        let paths = KernelPathFinder(routes: routes, probes: probes, defaultRoutes: defaultRoutes)
        // One fair resolver for host monitors and reachd's own connectivity check.
        let resolver = Resolver()
        let monitors = HostMonitorRegistry(
            evaluator: HostEvaluator(routes: routes, paths: paths, resolver: resolver),
            limits: .init(perClient: configuration.maximumMonitorsPerClient, total: configuration.maximumMonitors),
            logger: logger, portal: { publisher.current.connectivity == .portal },
            networkIsUp: { publisher.current.status.isReachable })
        let checker = ConnectivityChecker()
        // Every call of every object passes the policy first (sandboxed apps without network are refused).
        let callers = CallerPolicy(logger: logger, accounts: configuration.bus == .system ? .perUser : .perConnection)
        try await session.export(
            [ReachabilityInterface.declaration(publisher: publisher, monitors: monitors, checker: checker, callers: callers,
                                               session: session)],
            at: ReachabilityContract.objectPath)
        await session.admitCalls { connection, call in callers.admission(for: call, on: connection) }
        // A client that leaves the bus takes its monitors with it.
        let departures = try await session.signals(matching: MatchRule(
            sender: .bus, interface: .bus, member: "NameOwnerChanged", arguments: [2: ""]))

        let merger = ChangeMerger(
            settle: configuration.settle,
            crossCheck: .init(overrides: configuration.overrides, delay: configuration.overrideDelay), logger: logger,
            kernelPaths: { [reader = PathFactsReader(paths: paths, routes: routes, defaultRoutes: defaultRoutes)]
                () throws(RouteLookupFailure) in try reader.read() },
            start: { publisher.setInitial($0) },
            announce: { [self] value in await announce(value, publisher: publisher, session: session) },
            sourcesChanged: { Task { await monitors.reevaluate(on: session) } })
        // reachd's own check, only with a URI: follows the merger's paths, reports to it.
        var ownCheck: Task<Void, Never>?
        defer { ownCheck?.cancel() }
        if let configuration = configuration.connectivityCheck {
            let check = ReachdConnectivityCheck(
                loop: await session.loop, configuration: configuration, resolver: resolver, logger: logger,
                report: { key, result in await merger.receive(.reachdCheck(key, result)) })
            let (checkPaths, continuation) = AsyncStream.makeStream(of: CheckPaths.self, bufferingPolicy: .bufferingNewest(1))
            await merger.followCheckPaths(continuation)
            await checker.useOwnCheck(check)
            ownCheck = Task { await check.follow(checkPaths) }
            logger.info("connectivity check: \(configuration.uri) where NetworkManager does not check")
        }
        let kernelChanges = try await NetlinkChangeMonitor(
            loop: session.loop, defaultRoutes: defaultRoutes, allRouteEvents: configuration.allRouteEvents).changes()
        // A resume (logind's, or seen in the clocks) has NetworkManager read again.
        let (resyncs, resync) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        // Kernel link events have systemd-networkd's links listed again (its DescribeLink sends no signal).
        let (linkChanges, linkChanged) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let sources = [
            Task { await watchNetworkManager(reportingTo: merger, checker: checker, resyncs: resyncs, resync: resync,
                                             networkdLinkChanges: linkChanges) },
            Task { await forwardKernelChanges(kernelChanges, to: merger, resync: resync, linksChanged: linkChanged) },
        ]
        defer { sources.forEach { $0.cancel() } }

        let first = await merger.firstValue()
        logger.info("initial state: \(describe(first))")
        try await claimName(on: session)
        let nameLost = try await session.signals(matching: MatchRule(
            sender: .bus, interface: .bus, member: "NameLost", arguments: [0: Self.busName.rawValue]))
        let uniqueName = await session.uniqueName?.rawValue ?? "?"
        logger.info("serving \(Self.busName) on the \(configuration.bus.rawValue) bus as \(uniqueName)")

        let ending = await firstEnding(of: [
            {
                for await departure in departures {
                    guard let name = departure.body.first?.stringValue.flatMap(BusName.init(rawValue:)), name.isUnique else { continue }
                    callers.forget(name)
                    await session.releaseMonitors(ownedBy: name, registry: monitors)
                }
                return .sessionLost
            },
            { await session.waitUntilDisconnected(); return .sessionLost },
            { for await _ in nameLost { return .nameLost }; return .sessionLost },
            { await shutdown.wait(); return .shutdown },
        ])
        await merger.stop()

        switch ending {
        case .sessionLost:
            throw ReachabilityDaemonError.busLost(configuration.bus)
        case .nameLost:
            logger.info("\(Self.busName) was taken over by another instance; exiting")
        case .shutdown:
            _ = try? await session.releaseName(Self.busName)
            logger.info("released \(Self.busName); exiting")
        }
        await session.close()
    }

    /// Runs `tasks` until the first returns; cancels the rest.
    private func firstEnding(of tasks: [@Sendable () async -> Ending]) async -> Ending {
        await withTaskGroup(of: Ending.self) { group in
            for task in tasks { group.addTask(operation: task) }
            let first = await group.next() ?? .shutdown
            group.cancelAll()
            return first
        }
    }

    /// The probe addresses the configuration names (validated by the command line).
    private var probes: KernelPathFinder.Probes {
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

    /// Hands kernel changes to the merger, at most one evaluation per 250 ms
    /// under sustained churn: a change sooner than that after the last one
    /// waits out the rest (the stream keeps only the newest), so a routing
    /// daemon rewriting thousands of routes a second costs four evaluations a
    /// second, and a quiet kernel costs nothing (no timer is armed).
    private func forwardKernelChanges(_ changes: AsyncStream<Void>, to merger: ChangeMerger,
                                      resync: AsyncStream<Void>.Continuation? = nil,
                                      linksChanged: AsyncStream<Void>.Continuation? = nil) async {
        let interval = Duration.milliseconds(250)
        var last: ContinuousClock.Instant?
        // Without logind, a resume shows as the boot-time clock having run ahead; links
        // coming back after a sleep are kernel changes, so they are where it is seen.
        var sleeps = SuspendDetector()
        for await _ in changes {
            if let last, ContinuousClock.now - last < interval {
                guard (try? await Task.sleep(until: last + interval)) != nil else { return }
            }
            last = .now
            linksChanged?.yield()
            if sleeps.sleptSinceLastCheck(bootTime: Self.clock(CLOCK_BOOTTIME), monotonic: Self.clock(CLOCK_MONOTONIC)) {
                logger.info("resume: resynchronising (the boot-time clock ran ahead: the machine slept)")
                resync?.yield()
                await merger.receive(.resumed)
            } else {
                await merger.receive(.kernelChanged)
            }
        }
    }

    private func claimName(on session: Connection) async throws {
        var flags: RequestNameFlags = [.allowReplacement, .doNotQueue]
        if configuration.replace { flags.insert(.replaceExisting) }
        switch try await session.requestName(Self.busName, flags: flags) {
        case .primaryOwner, .alreadyOwner:
            return
        case .exists, .inQueue:
            let owner = try? await session.nameOwner(of: Self.busName)
            throw ReachabilityDaemonError.nameTaken(owner?.rawValue ?? "another process")
        }
    }

    /// Reports NetworkManager's state, nil while it is absent (or there is no system bus at all).
    private func watchNetworkManager(reportingTo merger: ChangeMerger, checker: ConnectivityChecker,
                                     resyncs: AsyncStream<Void>, resync: AsyncStream<Void>.Continuation,
                                     networkdLinkChanges: AsyncStream<Void> = AsyncStream { $0.finish() }) async {
        let system: Connection
        do {
            if let address = configuration.systemBusAddress {
                system = try await Connection.open(address: address, loop: loop)
            } else {
                system = try await Connection.system(loop: loop)
            }
        } catch {
            logger.warning("no system bus (\(error)); following the kernel's routes")
            await merger.receive(.networkManager(nil))
            return
        }
        let resumes = Task { await followResumes(on: system, resync: resync, merger: merger) }
        defer { resumes.cancel() }
        let networkd = await watchNetworkd(on: system, reportingTo: merger, linkChanges: networkdLinkChanges)
        defer { networkd.cancel() }
        let backend = NetworkManagerBackend(bus: system, logger: logger, callTimeout: configuration.networkManagerCallTimeout)
        defer { Task { await checker.attach(nil) } }
        do {
            try await backend.run(resyncs: resyncs) { snapshot in
                if snapshot == nil { logger.notice("no word from NetworkManager (absent, or not answering yet); following the kernel's routes") }
                await checker.attach(snapshot == nil ? nil : system, checking: snapshot?.connectivityCheckIsLive ?? false)
                await merger.receive(.networkManager(snapshot))
            }
        } catch {
            logger.error("watching NetworkManager failed: \(error)")
            await merger.receive(.networkManager(nil))
        }
        await system.close()
    }

    /// Follows systemd-networkd on `system` (it counts only while NetworkManager is absent);
    /// returns once its first word (or its absence) is with the merger, so that reachd's first
    /// value, which waits for NetworkManager's first word, already has it.
    private func watchNetworkd(on system: Connection, reportingTo merger: ChangeMerger,
                               linkChanges: AsyncStream<Void>) async -> Task<Void, Never> {
        let (firstReport, reported) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let backend = NetworkdBackend(bus: system, logger: logger, callTimeout: configuration.networkManagerCallTimeout)
        let task = Task { [logger] in
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
    private func followResumes(on system: Connection, resync: AsyncStream<Void>.Continuation, merger: ChangeMerger) async {
        guard let signals = try? await system.signals(matching: MatchRule(
            sender: "org.freedesktop.login1", interface: "org.freedesktop.login1.Manager",
            member: "PrepareForSleep", path: "/org/freedesktop/login1")) else { return }
        var again: Task<Void, Never>?
        defer { again?.cancel() }
        for await signal in signals {
            guard case .boolean(false)? = signal.body.first else { continue }
            again?.cancel()
            let round = { @Sendable (which: String) async in
                logger.info("resume: resynchronising (\(which))")
                resync.yield()
                await merger.receive(.resumed)
            }
            await round("at wake")
            again = Task {
                guard (try? await Task.sleep(for: .seconds(5))) != nil else { return }
                await round("5 s after wake")
            }
        }
    }

    private func announce(_ value: PublishedReachability, publisher: ReachabilityPublisher, session: Connection) async {
        do {
            let changed = try await publisher.publish(value, on: session)
            if !changed.isEmpty { logger.info("changed \(changed.joined(separator: ", ")): \(describe(value))") }
        } catch {
            logger.error("could not announce a change: \(error)")
        }
    }

    private func describe(_ value: PublishedReachability) -> String {
        "\(value.statusString) [\(value.flags)] via \(value.interfaceType.rawValue) \(value.interface.isEmpty ? "-" : value.interface), backend \(value.backendName.isEmpty ? "none" : value.backendName), source \(value.sourceName.isEmpty ? "none" : value.sourceName)"
    }
}
