import ReachdDBus
import ReachdContract
import ReachdCore
import Synchronization

/// What the main object and each host monitor publish: a value that knows
/// which of its D-Bus properties differ from an older one and whether
/// `ReachabilityChanged(status, flags)` is due.
protocol AnnouncedReachability: Sendable {
    var status: NetworkReachabilityStatus { get }
    var flags: ReachabilityFlags { get }
    func changedProperties(from old: Self) -> [String]
    func signalDue(from old: Self) -> Bool
}

extension PublishedReachability: AnnouncedReachability {}
extension HostReport: AnnouncedReachability {}

/// The current value of one exported object, and the one way its changes
/// are announced: a single `PropertiesChanged` naming every property that
/// changed, then `ReachabilityChanged` if (status, flags) changed.
///
/// Property reads come from D-Bus dispatch on the session connection's thread
/// while updates come from back-end tasks, hence the mutex.
final class AnnouncedState<Value: AnnouncedReachability>: Sendable {
    let path: ObjectPath
    let interface: InterfaceName
    private let value: Mutex<Value>
    /// What the object's cached replies are built per (`GetStatus`, `GetPath`, `Get`, `GetAll`):
    /// advanced with every value stored, announced or not (`Details`' `override-since-usec`
    /// changes unannounced), and by whatever else those replies read when it changes.
    let replies = ReplyGeneration()

    init(_ initial: Value, path: ObjectPath, interface: InterfaceName) {
        self.path = path
        self.interface = interface
        self.value = Mutex(initial)
    }

    var current: Value { value.withLock { $0 } }

    /// (status, flags) without copying the whole value: `GetStatus`, the most frequent call,
    /// would otherwise retain and release every string and array the value holds.
    var statusAndFlags: (status: NetworkReachabilityStatus, flags: ReachabilityFlags) {
        value.withLock { ($0.status, $0.flags) }
    }

    /// Sets the value without announcing it (before anyone can be listening).
    func setInitial(_ new: Value) {
        value.withLock { $0 = new }
        replies.advance()
    }

    /// Stores `new` and announces what changed; returns the changed names.
    @discardableResult
    func publish(_ new: Value, on connection: isolated Connection) throws -> [String] {
        let old = value.withLock { old in
            defer { old = new }
            return old
        }
        // Before the announcement: a client that reads right after it gets the new value.
        replies.advance()
        return try Self.announce(from: old, to: new, path: path, interface: interface, on: connection)
    }

    /// The one way a change is announced: a single `PropertiesChanged` naming every property
    /// that changed, then `ReachabilityChanged` if (status, flags) changed. Returns the names.
    @discardableResult
    static func announce(from old: Value, to new: Value, path: ObjectPath, interface: InterfaceName,
                         on connection: isolated Connection) throws -> [String] {
        let changed = new.changedProperties(from: old)
        guard !changed.isEmpty else { return [] }
        try connection.emitPropertiesChanged(path: path, interface: interface, names: changed)
        if new.signalDue(from: old) {
            try connection.emitSignal(path: path, interface: interface, member: ReachdContract.reachabilityChanged,
                                      body: [.int32(new.status.rawValue), .uint32(new.flags.rawValue)])
        }
        return changed
    }
}
