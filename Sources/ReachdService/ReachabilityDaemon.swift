import ReachdDBus
import Glibc
import ReachdEventLoops
import Logging
import ReachdContract
import ReachdCore
import ReachdEngine

/// The bus reachd serves its name on.
public enum ServedBus: String, Sendable, Equatable {
    /// One user's session bus (`reachd`): the user's apps.
    case session
    /// The system bus (`reachd --system`): every local user, system services, machines with
    /// no session. Limits count per user there, not per connection.
    case system
}

/// How reachd runs: the bus it serves, whether to take the name over, and what its engine
/// runs with (where NetworkManager is, settling, probes, caps, its own check).
package struct ReachabilityDaemonConfiguration: Sendable {
    /// The bus to serve on.
    package var bus: ServedBus
    package var replace: Bool
    /// The engine's configuration; its per-client cap counts per connection on the session bus,
    /// per user on the system bus.
    package var engine: EngineConfiguration

    package init(bus: ServedBus = .session, replace: Bool = false, engine: EngineConfiguration = EngineConfiguration()) {
        self.bus = bus
        self.replace = replace
        self.engine = engine
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
            "\(ReachdContract.busName) is already owned by \(owner); run with --replace to take it over"
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
package struct ReachabilityDaemon: Sendable {
    package static var busName: BusName { ReachdContract.busName }

    private let configuration: ReachabilityDaemonConfiguration
    private let logger: Logger
    private let loop: EventLoop?

    /// `loop`: the one loop to run both bus connections and the netlink
    /// socket on; nil gives each connection a loop thread of its own.
    package init(configuration: ReachabilityDaemonConfiguration, logger: Logger, loop: EventLoop? = nil) {
        self.configuration = configuration
        self.logger = logger
        self.loop = loop
    }

    private enum Ending { case shutdown, nameLost, sessionLost }

    /// Serves until `shutdown` is requested (returns), another instance takes
    /// the name over (returns), or the served bus is lost (throws). `serving` runs once, when
    /// start-up is done: the first state read and published, the name owned.
    package func run(until shutdown: ShutdownRequest, serving: @Sendable () -> Void = {}) async throws {
        // `session` is the served bus, whichever it is: the name below is the session
        // instance's, the code is the same for both.
        let session = try await configuration.bus == .system ? Connection.system(loop: loop) : Connection.session(loop: loop)
        let publisher = ReachabilityPublisher()
        let engine = try ReachdEngine(
            configuration: configuration.engine, logger: logger, loop: await session.loop,
            hostSink: BusHostMonitors(connection: session, replies: publisher.replies),
            initial: { publisher.setInitial($0) },
            announce: { [self] value in await announce(value, publisher: publisher, session: session) })
        // Every call of every object passes the policy first (sandboxed apps without network are refused).
        // …and callers in another network namespace get no answer for a host or a path.
        let namespace = NetworkNamespace.ofThisProcess
        let callers = CallerPolicy(logger: logger, accounts: configuration.bus == .system ? .perUser : .perConnection,
                                   networkNamespace: namespace, monitorAccount: { [hosts = engine.hosts] in hosts.account(ofMonitor: $0) })
        try await session.export(
            [ReachabilityInterface.declaration(publisher: publisher, monitors: engine.hosts, checker: engine.checker,
                                               callers: callers, networkNamespace: namespace)],
            at: ReachdContract.objectPath)
        await session.admitCalls { connection, call in callers.admission(for: call, on: connection) }
        // Turns by the account the caller's monitors and lookups count against (its user on the
        // system bus), so one user's many connections take one turn between other users'.
        await session.takeCallTurns { sender in callers.account(of: sender) }
        // A client that leaves the bus takes its monitors with it.
        let departures = try await session.signals(matching: MatchRule(
            sender: .bus, interface: .bus, member: "NameOwnerChanged", arguments: [2: ""]))

        let first = try await engine.start()
        logger.info("initial state: \(describe(first))")
        try await claimName(on: session)
        let nameLost = try await session.signals(matching: MatchRule(
            sender: .bus, interface: .bus, member: "NameLost", arguments: [0: Self.busName.rawValue]))
        let uniqueName = await session.uniqueName?.rawValue ?? "?"
        logger.info("serving \(Self.busName) on the \(configuration.bus.rawValue) bus as \(uniqueName)")
        serving()

        let ending = await firstEnding(of: [
            {
                for await departure in departures {
                    guard let name = departure.body.first?.stringValue.flatMap(BusName.init(rawValue:)), name.isUnique else { continue }
                    callers.forget(name)
                    await engine.hosts.ownerLeft(name.rawValue)
                }
                return .sessionLost
            },
            { await session.waitUntilDisconnected(); return .sessionLost },
            { for await _ in nameLost { return .nameLost }; return .sessionLost },
            { await shutdown.wait(); return .shutdown },
        ])
        await engine.stop()

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
