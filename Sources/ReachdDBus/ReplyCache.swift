/// The replies a connection sends again instead of building them anew: those of methods and
/// properties declared `cachedPer:` a `ReplyGeneration`, by object and by call.
///
/// A reply is found by what the caller sent (interface, member and arguments as given), so a
/// call answered once is answered again without finding its method or reading a property.
/// Only a call the object table answered with a value is stored, never an error, so the calls
/// stored are bounded by the object's declarations: its methods without arguments, and `Get`
/// and `GetAll` for the properties and interfaces it has. An object's replies go when it is
/// unexported. Owned by the connection and used on its thread only.
struct ReplyCache {
    /// A call as the caller sent it, on one object.
    private struct Call: Hashable {
        var interface: InterfaceName?
        var member: MemberName
        var arguments: [DBusValue]
    }

    private var replies: [ObjectPath: [Call: CachedReply]] = [:]

    /// The reply stored for a call like `call`, if its generation has not advanced since it
    /// was built. (An older one stays until the next is stored in its place.)
    func reply(for call: Message) -> CachedReply? {
        guard let path = call.path, let member = call.member,
              let reply = replies[path]?[Call(interface: call.interface, member: member, arguments: call.body)],
              reply.stamp.isCurrent else { return nil }
        return reply
    }

    /// Keeps `reply` as the answer to calls like `call`.
    mutating func store(_ reply: CachedReply, for call: Message) {
        guard let path = call.path, let member = call.member else { return }
        replies[path, default: [:]][Call(interface: call.interface, member: member, arguments: call.body)] = reply
    }

    /// `path` is no longer exported: whatever is exported there next answers for itself.
    mutating func forget(_ path: ObjectPath) {
        replies[path] = nil
    }
}
