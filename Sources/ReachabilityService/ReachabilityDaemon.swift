import DBus
import Logging
import ReachabilityCore

/// How reachd runs: where the buses are, whether to take the name over.
public struct ReachabilityDaemonConfiguration: Sendable {
    public var replace: Bool
    /// The system bus to watch NetworkManager on; nil for the usual one.
    public var systemBusAddress: String?
    /// How long a change must hold before it is published (flap suppression).
    public var settle: Duration
    /// Host monitors one client may hold, and all clients together.
    public var maximumMonitorsPerClient: Int
    public var maximumMonitors: Int

    public init(
        replace: Bool = false, systemBusAddress: String? = nil, settle: Duration = .zero,
        maximumMonitorsPerClient: Int = 64, maximumMonitors: Int = 4096
    ) {
        self.replace = replace
        self.systemBusAddress = systemBusAddress
        self.settle = settle
        self.maximumMonitorsPerClient = maximumMonitorsPerClient
        self.maximumMonitors = maximumMonitors
    }
}

/// Why reachd stopped other than by being asked to.
public enum ReachabilityDaemonError: Error, CustomStringConvertible {
    case nameTaken(String)
    case sessionBusLost

    public var description: String {
        switch self {
        case .nameTaken(let owner):
            "\(ReachabilityDaemon.busName) is already owned by \(owner); run with --replace to take it over"
        case .sessionBusLost:
            "the connection to the session bus was lost"
        }
    }
}

/// The reachd service: publishes reachability on the session bus.
///
/// Start-up order matters: the object is exported and the first state read
/// from NetworkManager before the bus name is requested, so the first call
/// after the name appears gets a real answer, never a start-up Unknown.
public struct ReachabilityDaemon: Sendable {
    public static let busName: BusName = "io.reachd.Reachability1"

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

    private enum Ending { case shutdown, nameLost, sessionLost, sourcesEnded }

    /// What the sources report, in the order it happened.
    private enum SourceEvent: Sendable {
        /// NetworkManager's state, or nil when it is not on the system bus.
        case networkManager(NetworkManagerSnapshot?)
        /// A link, address or route changed in the kernel.
        case kernelChanged
    }

    /// Serves until `shutdown` is requested (returns), another instance takes
    /// the name over (returns), or the session bus is lost (throws).
    public func run(until shutdown: ShutdownRequest) async throws {
        let session = try await Connection.session(loop: loop)
        let publisher = ReachabilityPublisher()
        let routes = try RouteLookup()
        let monitors = HostMonitorRegistry(
            evaluator: HostEvaluator(routes: routes, resolver: Resolver()),
            limits: .init(perClient: configuration.maximumMonitorsPerClient, total: configuration.maximumMonitors),
            portal: { publisher.current.connectivity == .portal })
        try await session.export(
            [ReachabilityInterface.declaration(publisher: publisher, monitors: monitors, session: session)],
            at: ReachabilityPublisher.path)
        // A client that leaves the bus takes its monitors with it.
        let departures = try await session.signals(matching: MatchRule(
            sender: .bus, interface: .bus, member: "NameOwnerChanged", arguments: [2: ""]))

        let (events, sink) = AsyncStream.makeStream(of: SourceEvent.self, bufferingPolicy: .bufferingNewest(256))
        let kernelChanges = try await NetlinkChangeMonitor(loop: session.loop).changes()
        let sources = [
            Task { await watchNetworkManager(into: sink) },
            Task {
                for await _ in kernelChanges { sink.yield(.kernelChanged) }
            },
        ]
        defer { sources.forEach { $0.cancel() } }

        // The first state needs NetworkManager's first answer (or its absence).
        var networkManager: NetworkManagerSnapshot?
        for await event in events {
            if case .networkManager(let snapshot) = event {
                networkManager = snapshot
                break
            }
        }
        let view = { @Sendable (snapshot: NetworkManagerSnapshot?) -> PublishedReachability in
            if let snapshot { return PublishedReachability(networkManager: snapshot) }
            // Both default routes usually leave by the same interface: read it once.
            let links = LinkSnapshots()
            return PublishedReachability(kernelDefaultRoute: routes.defaultRoute(.v4, links: links),
                                         ipv6DefaultRoute: routes.defaultRoute(.v6, links: links))
        }
        let first = view(networkManager)
        publisher.setInitial(first)
        logger.info("initial state: \(describe(first))")

        try await claimName(on: session)
        let nameLost = try await session.signals(matching: MatchRule(
            sender: .bus, interface: .bus, member: "NameLost", arguments: [0: Self.busName.rawValue]))
        let uniqueName = await session.uniqueName?.rawValue ?? "?"
        logger.info("serving \(Self.busName) on the session bus as \(uniqueName)")

        let initialSnapshot = networkManager
        let ending = await withTaskGroup(of: Ending.self) { group in
            group.addTask {
                var latest = initialSnapshot
                let (values, valueSink) = AsyncStream.makeStream(of: PublishedReachability.self, bufferingPolicy: .bufferingNewest(64))
                let publishing = Task { await publishChanges(from: values, publisher: publisher, session: session) }
                defer { publishing.cancel() }
                for await event in events {
                    if case .networkManager(let snapshot) = event { latest = snapshot }
                    valueSink.yield(view(latest))
                    Task { await monitors.reevaluate(on: session) }
                }
                return .sourcesEnded
            }
            group.addTask {
                for await departure in departures {
                    guard let name = departure.body.first?.stringValue.flatMap(BusName.init(rawValue:)), name.isUnique else { continue }
                    await session.releaseMonitors(ownedBy: name, registry: monitors)
                }
                return .sessionLost
            }
            group.addTask {
                await session.waitUntilDisconnected()
                return .sessionLost
            }
            group.addTask {
                for await _ in nameLost { return .nameLost }
                return .sessionLost
            }
            group.addTask {
                await shutdown.wait()
                return .shutdown
            }
            let first = await group.next() ?? .shutdown
            group.cancelAll()
            return first
        }

        switch ending {
        case .sessionLost:
            throw ReachabilityDaemonError.sessionBusLost
        case .nameLost:
            logger.info("\(Self.busName) was taken over by another instance; exiting")
        case .shutdown, .sourcesEnded:
            _ = try? await session.releaseName(Self.busName)
            logger.info("released \(Self.busName); exiting")
        }
        await session.close()
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
    private func watchNetworkManager(into sink: AsyncStream<SourceEvent>.Continuation) async {
        let system: Connection
        do {
            if let address = configuration.systemBusAddress {
                system = try await Connection.open(address: address, loop: loop)
            } else {
                system = try await Connection.system(loop: loop)
            }
        } catch {
            logger.warning("no system bus (\(error)); following the kernel's routes")
            sink.yield(.networkManager(nil))
            return
        }
        let backend = NetworkManagerBackend(bus: system, logger: logger)
        do {
            try await backend.run { snapshot in
                if snapshot == nil { logger.notice("no word from NetworkManager (absent or still starting); following the kernel's routes") }
                sink.yield(.networkManager(snapshot))
            }
        } catch {
            logger.error("watching NetworkManager failed: \(error)")
            sink.yield(.networkManager(nil))
        }
        await system.close()
    }

    /// Publishes each new value, holding it for the settle time first if one is set.
    private func publishChanges(
        from updates: AsyncStream<PublishedReachability>,
        publisher: ReachabilityPublisher, session: Connection
    ) async {
        var pending: Task<Void, Never>?
        for await value in updates {
            pending?.cancel()
            if configuration.settle == .zero {
                await announce(value, publisher: publisher, session: session)
            } else {
                pending = Task { [settle = configuration.settle] in
                    guard (try? await Task.sleep(for: settle)) != nil else { return }
                    await announce(value, publisher: publisher, session: session)
                }
            }
        }
        pending?.cancel()
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
        "\(value.statusString) [\(value.flags)] via \(value.interfaceType.rawValue) \(value.interface.isEmpty ? "-" : value.interface), backend \(value.backendName.isEmpty ? "none" : value.backendName)"
    }
}
