import CReachdDBus

/// Messages as the bytes on a bus's socket, through libdbus's own marshalling and validation:
/// what the relay's framing is checked against.
enum WireForm {
    /// `message` as a bus delivers it, with `sender` and `serial` set.
    static func bytes(of message: Message, sender: BusName, serial: UInt32) throws(DBusError) -> [UInt8] {
        let raw = try MessageWriter.make(message)
        defer { dbus_message_unref(raw) }
        guard dbus_message_set_sender(raw, sender.rawValue) != 0 else { throw .noMemory("libdbus could not set the sender") }
        dbus_message_set_serial(raw, serial)
        var marshalled: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        guard dbus_message_marshal(raw, &marshalled, &length) != 0, let marshalled else {
            throw .noMemory("libdbus could not marshal the message")
        }
        defer { dbus_free(marshalled) }
        return UnsafeRawBufferPointer(start: marshalled, count: Int(length)).map { $0 }
    }

    /// The message `bytes` hold, or why libdbus refuses them as it would refuse them on a socket
    /// (where it then drops the connection).
    static func message(from bytes: [UInt8]) -> Result<Message, DBusError> {
        var error = CReachdDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let raw = bytes.withUnsafeBytes {
            dbus_message_demarshal($0.baseAddress?.assumingMemoryBound(to: CChar.self), Int32($0.count), &error)
        }
        guard let raw else {
            return .failure(.invalidArgs(error.message.map { String(cString: $0) } ?? "libdbus refused the message"))
        }
        defer { dbus_message_unref(raw) }
        return .success(MessageReader.read(raw))
    }
}
