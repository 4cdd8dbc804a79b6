import Synchronization

/// Every default route the kernel has, in any table, kept without dumping
/// the table again: made from one strict dump when first needed (the first
/// reading of the path: each link with a default route of its own has a path
/// to the Internet), then kept current from route notifications. After lost notifications (ENOBUFS) it is dumped
/// again, at most once every 5 s.
///
/// A route is keyed by family, table, metric and outgoing link, so
/// `ip route replace`, which announces a new route without removing the old,
/// changes nothing.
final class DefaultRouteSet: Sendable {
    struct Key: Hashable, Sendable {
        var family: IPAddress.Family
        var table: UInt32
        var priority: UInt32
        var outputInterface: UInt32
    }

    private struct State {
        var entries: Set<Key> = []
        var loaded = false
        var stale = false
        var lastDump: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    private let dump: @Sendable (IPAddress.Family) throws(RouteLookupFailure) -> [RouteMessage]

    init(dump: @escaping @Sendable (IPAddress.Family) throws(RouteLookupFailure) -> [RouteMessage] = { family throws(RouteLookupFailure) in
        try RouteLookup.dumpDefaultRoutes(family)
    }) {
        self.dump = dump
    }

    /// Applies a route notification; only default routes with an outgoing link count.
    func apply(_ route: RouteMessage, removed: Bool) {
        guard let key = Self.key(route) else { return }
        state.withLock { state in
            if removed { state.entries.remove(key) } else { state.entries.insert(key) }
        }
    }

    /// Notifications were lost: the set may be wrong until dumped again.
    func markStale() {
        state.withLock { $0.stale = true }
    }

    /// The outgoing links of every default route, dumping first if needed.
    func outputInterfaces() throws(RouteLookupFailure) -> Set<UInt32> {
        let needsDump = state.withLock { state -> Bool in
            guard state.loaded else { return true }
            guard state.stale else { return false }
            return state.lastDump.map { ContinuousClock.now - $0 >= .seconds(5) } ?? true
        }
        if needsDump {
            var entries: Set<Key> = []
            for family in [IPAddress.Family.v4, .v6] {
                for route in try dump(family) { if let key = Self.key(route) { entries.insert(key) } }
            }
            state.withLock { state in
                state.entries = entries
                state.loaded = true
                state.stale = false
                state.lastDump = .now
            }
        }
        return state.withLock { Set($0.entries.map(\.outputInterface)) }
    }

    private static func key(_ route: RouteMessage) -> Key? {
        guard route.destinationLength == 0, route.type == .unicast, route.outputInterface != 0 else { return nil }
        return Key(family: route.family, table: route.table, priority: route.priority, outputInterface: route.outputInterface)
    }
}
