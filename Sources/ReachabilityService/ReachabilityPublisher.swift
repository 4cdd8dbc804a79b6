import DBus
import ReachabilityCore
import Synchronization

/// Holds what reachd publishes and announces each change.
///
/// Property reads come from D-Bus dispatch on the session connection's thread
/// while updates come from the back end's task, hence the mutex. A change is
/// announced as one `PropertiesChanged` naming every property that changed,
/// then `ReachabilityChanged` if (status, flags) changed.
public final class ReachabilityPublisher: Sendable {
    public static let path: ObjectPath = "/io/reachd/Reachability1"
    public static let interface: InterfaceName = "io.reachd.Reachability1"

    private let state = Mutex(PublishedReachability.unknown)

    public init() {}

    public var current: PublishedReachability { state.withLock { $0 } }

    /// Sets the value without announcing it (before the bus name is claimed).
    public func setInitial(_ value: PublishedReachability) {
        state.withLock { $0 = value }
    }

    /// Publishes `value` and announces what changed; returns the changed names.
    @discardableResult
    public func publish(_ value: PublishedReachability, on connection: isolated Connection) throws -> [String] {
        let old = state.withLock { old in
            defer { old = value }
            return old
        }
        let changed = value.changedProperties(from: old)
        guard !changed.isEmpty else { return [] }
        try connection.emitPropertiesChanged(path: Self.path, interface: Self.interface, names: changed)
        if value.signalDue(from: old) {
            try connection.emitSignal(path: Self.path, interface: Self.interface, member: "ReachabilityChanged",
                                      body: [.int32(value.status.rawValue), .uint32(value.flags.rawValue)])
        }
        return changed
    }
}
