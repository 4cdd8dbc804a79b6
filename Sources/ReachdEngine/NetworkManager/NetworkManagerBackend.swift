import ReachdDBus
import Logging
import ReachdCore

/// Watches NetworkManager on the system bus and reports what it says.
///
/// One stream carries NetworkManager's own signals, the bus's
/// `NameOwnerChanged` about it and this backend's retry timer, so they are
/// handled in the order they happened. Manager properties arrive in the
/// signals and are applied at once; only a newly referenced object (a new
/// primary connection, its devices) costs a `GetAll`. A `GetAll` answer may be
/// followed by signals that were sent before it: applied in order after it,
/// they end on the same value, because NetworkManager announces every change.
///
/// Errors: an object that answers "no such object" has vanished (it was
/// removed between its mention and our question). Any other failure (a
/// timeout, NetworkManager busy) is transient: nothing is reported until the
/// object has been read, the last report stands meanwhile, and the read is
/// retried with a bounded backoff (docs/design.md, "Errors").
public struct NetworkManagerBackend: Sendable {
    private let bus: Connection
    private let logger: Logger
    private let callTimeout: Duration

    public init(bus: Connection, logger: Logger, callTimeout: Duration = .seconds(5)) {
        self.bus = bus
        self.logger = logger
        self.callTimeout = callTimeout
    }

    private enum Input: Sendable {
        case signal(Message)
        /// Time to read again what a transient failure left unread.
        case retry
        /// The machine woke from sleep: read everything again.
        case resync
    }

    /// Calls `report` with NetworkManager's state (nil while it is not on the
    /// bus, or still starting): first once the initial state is read, then
    /// after each change that alters the snapshot. Returns when the task is
    /// cancelled or the bus goes away. Each element of `resyncs` (a resume from
    /// sleep) has everything read again, as at start, in case a change was missed.
    public func run(resyncs: AsyncStream<Void> = AsyncStream { $0.finish() },
                    report: @Sendable (NetworkManagerSnapshot?) async -> Void) async throws {
        let (inputs, sink) = AsyncStream.makeStream(of: Input.self, bufferingPolicy: .bufferingNewest(4096))
        let forwarding = Task { for await _ in resyncs { sink.yield(.resync) } }
        defer { forwarding.cancel() }
        try await bus.deliverSignals(matchingAny: [
            MatchRule(sender: NetworkManagerNames.bus),
            MatchRule(sender: .bus, interface: .bus, member: "NameOwnerChanged",
                      path: "/org/freedesktop/DBus", arguments: [0: NetworkManagerNames.bus.rawValue]),
        ], to: sink) { .signal($0) }

        var reader = Reader(backend: self)
        defer { reader.retry?.cancel() }
        reader.owner = try await bus.nameOwner(of: NetworkManagerNames.bus)
        if reader.owner != nil { await reader.synchronize() }
        // The first report is due even when the first read failed: there is
        // no earlier value to keep, and the kernel's view is a fact.
        var last = reader.snapshot
        if reader.owner != nil, last?.startup ?? true { logger.info("NetworkManager is still starting up; following the kernel while its path is intact") }
        await report(last)
        reader.scheduleRetryIfNeeded(into: sink)

        for await input in inputs {
            switch input {
            case .retry:
                reader.retry = nil
                await reader.readMissing()
            case .resync:
                guard reader.owner != nil else { continue }
                await reader.synchronize()
            case .signal(let signal) where signal.sender == .bus:
                guard signal.member?.rawValue == "NameOwnerChanged", signal.body.count == 3 else { continue }
                let owner = signal.body[2].stringValue.flatMap(BusName.init(rawValue:))
                logger.info("NetworkManager \(owner == nil ? "left the bus" : "is on the bus as \(owner!)")")
                reader.owner = owner
                reader.cache = NetworkManagerPropertyCache()
                reader.backoff.reset()
                if owner != nil { await reader.synchronize() }
            case .signal(let signal):
                guard let owner = reader.owner, signal.sender == owner else { continue }
                if reader.cache.knowsManager {
                    guard reader.cache.apply(signal) else { continue }
                    await reader.readMissing()
                } else {
                    // NetworkManager claims its name before it exports its objects
                    // (the first GetAll answers UnknownMethod): ask again once it speaks.
                    await reader.synchronize()
                }
            }
            reader.scheduleRetryIfNeeded(into: sink)
            // While a read is owed, the cache is incomplete: keep the last report.
            guard !reader.isIncomplete else { continue }
            if reader.backoff.reset() { logger.notice("NetworkManager answers again; its state is current") }
            let snapshot = reader.snapshot
            if snapshot != last {
                last = snapshot
                await report(snapshot)
            }
        }
    }

    /// The cache, what is owed to it, and how to read it.
    private struct Reader {
        let backend: NetworkManagerBackend
        var owner: BusName?
        var cache = NetworkManagerPropertyCache()
        var backoff = RetryBackoff()
        var retry: Task<Void, Never>?
        /// The last read failed for a reason other than the object vanishing.
        var lastFailure: DBusError?

        init(backend: NetworkManagerBackend) { self.backend = backend }

        var isIncomplete: Bool { owner != nil && lastFailure != nil }

        /// What NetworkManager says, nil while it is absent or its manager has
        /// not been read. While its `Startup` lasts the snapshot says so, and the
        /// decision table keeps the kernel's answer over an intact path (R1).
        var snapshot: NetworkManagerSnapshot? {
            owner == nil || !cache.knowsManager ? nil : cache.snapshot
        }

        /// Reads the manager and everything the snapshot refers to.
        mutating func synchronize() async {
            cache = NetworkManagerPropertyCache()
            lastFailure = nil
            guard await read(NetworkManagerNames.managerPath, NetworkManagerNames.managerInterface) else { return }
            await readMissing()
        }

        /// Follows references (connection → device → config), one more each round.
        mutating func readMissing() async {
            guard cache.knowsManager || lastFailure == nil else { return await synchronize() }
            lastFailure = nil
            while true {
                let missing = cache.missingObjects
                if missing.isEmpty { break }
                for object in missing {
                    guard await read(object.path, object.interface) else { return }
                }
            }
            cache.pruneUnreferenced()
        }

        /// Reads one object into the cache (an empty entry when it vanished);
        /// false, with `lastFailure` set, when it could not be read.
        private mutating func read(_ path: ObjectPath, _ interface: InterfaceName) async -> Bool {
            switch await backend.properties(of: path, interface) {
            case .properties(let properties):
                cache.store(properties, at: path, interface: interface)
            case .vanished:
                cache.store([:], at: path, interface: interface)
            case .failed(let error):
                lastFailure = error
                return false
            }
            return true
        }

        mutating func scheduleRetryIfNeeded(into sink: AsyncStream<Input>.Continuation) {
            guard isIncomplete, let lastFailure, retry == nil else { return }
            if !backoff.isFailing {
                backend.logger.warning("reading NetworkManager failed (\(lastFailure)); keeping the last state and retrying")
            }
            let delay = backoff.next()
            retry = Task {
                guard (try? await Task.sleep(for: delay)) != nil else { return }
                sink.yield(.retry)
            }
        }
    }

    private enum ReadOutcome {
        case properties([String: DBusValue])
        /// The object is not there (any more): a fact, not a failure.
        case vanished
        case failed(DBusError)
    }

    /// The names with which a service says "no such object here".
    private static let vanishedErrors: Set<String> = [
        "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.UnknownMethod",
        "org.freedesktop.DBus.Error.UnknownInterface", "org.freedesktop.DBus.Error.InvalidArgs",
    ]

    private func properties(of path: ObjectPath, _ interface: InterfaceName) async -> ReadOutcome {
        do {
            let reply = try await bus.call(destination: NetworkManagerNames.bus, path: path, interface: .properties,
                                           member: "GetAll", body: [.string(interface.rawValue)],
                                           timeout: callTimeout)
            guard case .dictionary(_, _, let entries)? = reply.first else { return .properties([:]) }
            var result: [String: DBusValue] = [:]
            for entry in entries {
                if let name = entry.key.stringValue { result[name] = entry.value.unwrappingVariant }
            }
            return .properties(result)
        } catch let error as DBusError where Self.vanishedErrors.contains(error.name.rawValue) {
            logger.debug("GetAll \(interface) on \(path): gone (\(error))")
            return .vanished
        } catch let error as DBusError {
            return .failed(error)
        } catch {
            return .failed(DBusError.failed("\(error)"))
        }
    }
}
