import CReachdDBus

/// A method return built once and sent again: libdbus's `dbus_message_copy` keeps the
/// marshalled header and body bytes, so an answer costs a copy and two header fields instead
/// of marshalling every value again (for `GetStatus`, a third of a call's work).
///
/// Not `Sendable`: it lives in its connection's `ReplyCache` and is touched only on the
/// connection's thread. The message it holds is never sent itself, so libdbus never locks it
/// or gives it a serial; only its copies are sent.
final class CachedReply {
    private let raw: OpaquePointer
    let stamp: ReplyGeneration.Stamp

    /// `body` has been checked against the method's declared output.
    init(body: [DBusValue], stamp: ReplyGeneration.Stamp) throws(DBusError) {
        // No destination and no reply serial: each copy gets its caller's.
        raw = try MessageWriter.make(Message(kind: .methodReturn, body: body))
        self.stamp = stamp
    }

    deinit {
        dbus_message_unref(raw)
    }

    /// A new message with one reference, owned by the caller: this reply, addressed to
    /// `call`'s sender and answering `call`'s serial. A copy is unlocked, so libdbus lets
    /// both fields be set on it.
    func copy(answering call: Message) throws(DBusError) -> OpaquePointer {
        guard let copy = dbus_message_copy(raw) else {
            throw .noMemory("libdbus could not copy a cached reply")
        }
        var ok = dbus_message_set_reply_serial(copy, call.serial) != 0
        if let sender = call.sender {
            ok = ok && dbus_message_set_destination(copy, sender.rawValue) != 0
        }
        guard ok else {
            dbus_message_unref(copy)
            throw .noMemory("libdbus ran out of memory addressing a cached reply")
        }
        return copy
    }
}
