/// Whether an incoming call may be answered, decided by the exporter before dispatch.
///
/// A service that must refuse some callers (reachd refuses sandboxed apps without network
/// access) sets one hook on its connection with `admitCalls(with:)`. The connection runs it
/// before every call it would dispatch to an exported object, `Properties` included, so no
/// method can be forgotten. `Introspectable` stays open (it only describes the interface), and
/// libdbus answers `Peer` before any of this.
///
/// ```swift
/// await bus.admitCalls { _, call in
///     call.sender == trusted ? .admit : .refuse(DBusError(name: "org.example.Error.NotAllowed", message: "not you"))
/// }
/// ```
public enum CallAdmission: Sendable {
    case admit
    case refuse(DBusError)
    /// Not known yet (the caller is being identified): the call waits for `decision`, which
    /// returns nil to admit it or the error to answer with. Other callers are not held up.
    case decideLater(@Sendable () async -> DBusError?)
}

/// Runs on the connection's thread for each call, so it must be cheap for a caller it knows.
public typealias CallAdmissionHook = @Sendable (isolated Connection, Message) -> CallAdmission

extension Message {
    /// Calls no admission hook may refuse: introspection and `Peer`.
    var isAlwaysAdmitted: Bool {
        switch interface {
        case .introspectable?, .peer?: true
        case nil: member?.rawValue == "Introspect"
        default: false
        }
    }
}
