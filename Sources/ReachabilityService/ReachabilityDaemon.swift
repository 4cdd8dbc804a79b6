import DBus
import Logging
import ReachabilityCore
import ServiceLifecycle

/// How reachd runs: where the buses are, whether to take the name over.
public struct ReachabilityDaemonConfiguration: Sendable {
    public var replace: Bool
    /// The system bus to watch NetworkManager on; nil for the usual one.
    public var systemBusAddress: String?
    /// How long a change must hold before it is published (flap suppression).
    public var settle: Duration

    public init(replace: Bool = false, systemBusAddress: String? = nil, settle: Duration = .zero) {
        self.replace = replace
        self.systemBusAddress = systemBusAddress
        self.settle = settle
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
public struct ReachabilityDaemon: Service {
    public static let busName: BusName = "io.reachd.Reachability1"

    private let configuration: ReachabilityDaemonConfiguration
    private let logger: Logger

    public init(configuration: ReachabilityDaemonConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    private enum Ending { case shutdown, nameLost, sessionLost, updatesEnded }

    public func run() async throws {
        let session = try await Connection.session()
        let publisher = ReachabilityPublisher()
        try await session.export([ReachabilityInterface.declaration(publisher: publisher)], at: ReachabilityPublisher.path)

        let (updates, continuation) = AsyncStream.makeStream(of: PublishedReachability.self, bufferingPolicy: .bufferingNewest(64))
        let source = Task { await watchSources(into: continuation) }
        defer { source.cancel() }
        // The stream has one consumer at a time: this loop, then the task below.
        for await first in updates {
            publisher.setInitial(first)
            logger.info("initial state: \(describe(first))")
            break
        }

        try await claimName(on: session)
        let nameLost = try await session.signals(matching: MatchRule(
            sender: .bus, interface: .bus, member: "NameLost", arguments: [0: Self.busName.rawValue]))
        let uniqueName = await session.uniqueName?.rawValue ?? "?"
        logger.info("serving \(Self.busName) on the session bus as \(uniqueName)")

        let ending = await withTaskGroup(of: Ending.self) { group in
            group.addTask {
                await publishChanges(from: updates, publisher: publisher, session: session)
                return .updatesEnded
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
                try? await gracefulShutdown()
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
        case .shutdown, .updatesEnded:
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

    /// Feeds published values from NetworkManager (or Unknown when there is no source).
    private func watchSources(into continuation: AsyncStream<PublishedReachability>.Continuation) async {
        defer { continuation.finish() }
        let address = configuration.systemBusAddress
        let system: Connection
        do {
            if let address {
                system = try await Connection.open(address: address)
            } else {
                system = try await Connection.system()
            }
        } catch {
            logger.warning("no system bus (\(error)); reporting Unknown")
            continuation.yield(.unknown)
            await waitForever()
            return
        }
        let backend = NetworkManagerBackend(bus: system, logger: logger)
        do {
            try await backend.run { snapshot in
                if snapshot == nil { logger.warning("NetworkManager is not on the system bus; reporting Unknown") }
                continuation.yield(snapshot.map(PublishedReachability.init(networkManager:)) ?? .unknown)
            }
        } catch {
            logger.error("watching NetworkManager failed: \(error)")
            continuation.yield(.unknown)
        }
        await system.close()
    }

    private func waitForever() async {
        let (stream, _) = AsyncStream.makeStream(of: Never.self)
        for await _ in stream {}
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
