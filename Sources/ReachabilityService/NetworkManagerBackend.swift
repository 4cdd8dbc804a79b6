import DBus
import Logging
import ReachabilityCore

/// Watches NetworkManager on the system bus and reports what it says.
///
/// One subscription carries both NetworkManager's own signals and the bus's
/// `NameOwnerChanged` about it, so they are handled in the order they
/// happened. Manager properties arrive in the signals and are applied at
/// once; only a newly referenced object (a new primary connection, its
/// devices) costs a `GetAll`. A `GetAll` answer may be followed by signals
/// that were sent before it: applied in order after it, they end on the same
/// value, because NetworkManager announces every change.
public struct NetworkManagerBackend: Sendable {
    private let bus: Connection
    private let logger: Logger

    public init(bus: Connection, logger: Logger) {
        self.bus = bus
        self.logger = logger
    }

    /// Calls `report` with NetworkManager's state (nil while it is not on the
    /// bus): first once the initial state is read, then after each change that
    /// alters the snapshot. Returns when the task is cancelled or the bus goes away.
    public func run(report: @Sendable (NetworkManagerSnapshot?) async -> Void) async throws {
        let signals = try await bus.signals(matchingAny: [
            MatchRule(sender: NetworkManagerNames.bus),
            MatchRule(sender: .bus, interface: .bus, member: "NameOwnerChanged",
                      path: "/org/freedesktop/DBus", arguments: [0: NetworkManagerNames.bus.rawValue]),
        ])
        var owner = try await bus.nameOwner(of: NetworkManagerNames.bus)
        var cache = NetworkManagerPropertyCache()
        if owner != nil { cache = await synchronize() }
        var last: NetworkManagerSnapshot? = owner == nil || !cache.isReady ? nil : cache.snapshot
        if owner != nil, last == nil { logger.info("NetworkManager is still starting up; following the kernel until it is done") }
        await report(last)

        for await signal in signals {
            if signal.sender == .bus {
                guard signal.member?.rawValue == "NameOwnerChanged", signal.body.count == 3 else { continue }
                owner = signal.body[2].stringValue.flatMap(BusName.init(rawValue:))
                logger.info("NetworkManager \(owner == nil ? "left the bus" : "is on the bus as \(owner!)")")
                cache = owner == nil ? NetworkManagerPropertyCache() : await synchronize()
            } else {
                guard let owner, signal.sender == owner else { continue }
                if cache.knowsManager {
                    guard cache.apply(signal) else { continue }
                    await fetchMissing(into: &cache)
                } else {
                    // NetworkManager claims its name before it exports its objects
                    // (the first GetAll answers UnknownMethod): ask again once it speaks.
                    cache = await synchronize()
                }
            }
            // Until NetworkManager has been read and its Startup is over (State is
            // 20 for a moment on a machine that stays connected), the kernel's
            // view is the truer one.
            let snapshot: NetworkManagerSnapshot? = owner == nil || !cache.isReady ? nil : cache.snapshot
            if snapshot != last {
                last = snapshot
                await report(snapshot)
            }
        }
    }

    /// Reads the manager and everything the snapshot refers to.
    private func synchronize() async -> NetworkManagerPropertyCache {
        var cache = NetworkManagerPropertyCache()
        cache.store(await properties(of: NetworkManagerNames.managerPath, NetworkManagerNames.managerInterface),
                    at: NetworkManagerNames.managerPath)
        await fetchMissing(into: &cache)
        return cache
    }

    private func fetchMissing(into cache: inout NetworkManagerPropertyCache) async {
        // Each round follows one more reference (connection → device → config).
        while true {
            let missing = cache.missingObjects
            if missing.isEmpty { break }
            for object in missing {
                cache.store(await properties(of: object.path, object.interface), at: object.path)
            }
        }
        cache.pruneUnreferenced()
    }

    private func properties(of path: ObjectPath, _ interface: InterfaceName) async -> [String: DBusValue] {
        do {
            let reply = try await bus.call(destination: NetworkManagerNames.bus, path: path, interface: .properties,
                                           member: "GetAll", body: [.string(interface.rawValue)],
                                           timeout: .seconds(5))
            guard case .dictionary(_, _, let entries)? = reply.first else { return [:] }
            var result: [String: DBusValue] = [:]
            for entry in entries {
                if let name = entry.key.stringValue { result[name] = entry.value.unwrappingVariant }
            }
            return result
        } catch {
            // An object that vanished between its mention and our question.
            logger.debug("GetAll \(interface) on \(path) failed: \(error)")
            return [:]
        }
    }
}
