import CReachdDBus
import CReachdDBusShims

/// Builds a libdbus message from a `Message` value.
///
/// Everything is checked before libdbus sees it: libdbus treats a bad
/// outgoing value as a programming error and aborts the process, while we
/// want a `DBusError` the caller can handle.
enum MessageWriter {
    /// A new libdbus message with one reference, owned by the caller.
    static func make(_ message: Message) throws(DBusError) -> OpaquePointer {
        try validate(message)
        guard let raw = newMessage(message) else {
            throw .noMemory("libdbus could not allocate a message")
        }
        var ok = true
        if message.kind != .signal && message.kind != .methodCall {
            if let path = message.path { ok = ok && dbus_message_set_path(raw, path.rawValue) != 0 }
            if let interface = message.interface { ok = ok && dbus_message_set_interface(raw, interface.rawValue) != 0 }
            if let member = message.member { ok = ok && dbus_message_set_member(raw, member.rawValue) != 0 }
        }
        if let errorName = message.errorName { ok = ok && dbus_message_set_error_name(raw, errorName.rawValue) != 0 }
        if message.kind != .methodCall, let destination = message.destination {
            ok = ok && dbus_message_set_destination(raw, destination.rawValue) != 0
        }
        if message.replySerial != 0 { ok = ok && dbus_message_set_reply_serial(raw, message.replySerial) != 0 }
        dbus_message_set_no_reply(raw, message.noReplyExpected ? 1 : 0)
        var iterator = DBusMessageIter()
        dbus_message_iter_init_append(raw, &iterator)
        for value in message.body where ok {
            ok = append(value, to: &iterator)
        }
        guard ok else {
            dbus_message_unref(raw)
            throw .noMemory("libdbus ran out of memory building a message")
        }
        return raw
    }

    /// Signals and calls are made with their header fields in one go: each setter rewrites the
    /// header, and three of them cost a host monitor's re-evaluation a third of its work.
    /// (`validate` has checked that a signal has a path, an interface and a member, and a call
    /// a path and a member.)
    private static func newMessage(_ message: Message) -> OpaquePointer? {
        switch message.kind {
        case .signal:
            dbus_message_new_signal(message.path!.rawValue, message.interface!.rawValue, message.member!.rawValue)
        case .methodCall:
            dbus_message_new_method_call(message.destination?.rawValue, message.path!.rawValue,
                                         message.interface?.rawValue, message.member!.rawValue)
        case .methodReturn, .error:
            dbus_message_new(messageType(message.kind))
        }
    }

    private static func messageType(_ kind: Message.Kind) -> Int32 {
        switch kind {
        case .methodCall: DBUS_MESSAGE_TYPE_METHOD_CALL
        case .methodReturn: DBUS_MESSAGE_TYPE_METHOD_RETURN
        case .error: DBUS_MESSAGE_TYPE_ERROR
        case .signal: DBUS_MESSAGE_TYPE_SIGNAL
        }
    }

    // MARK: Validation

    static func validate(_ message: Message) throws(DBusError) {
        switch message.kind {
        case .methodCall where message.path == nil || message.member == nil:
            throw .invalidArgs("a method call needs a path and a member")
        case .signal where message.path == nil || message.interface == nil || message.member == nil:
            throw .invalidArgs("a signal needs a path, an interface and a member")
        case .error where message.errorName == nil:
            throw .invalidArgs("an error message needs an error name")
        default:
            break
        }
        for value in message.body { try validate(value, depth: 0) }
        // libdbus enforces the signature limits (255 bytes, nesting) only by aborting. A body
        // of basic values, variants and one-level arrays and dictionaries of them (most
        // replies and signals, PropertiesChanged among them) is within them without joining
        // and parsing its signature.
        var length = 0
        for value in message.body {
            guard let more = value.shallowSignatureLength else { length = Int.max; break }
            length += more
        }
        if length <= 255 { return }
        guard Signature(rawValue: message.body.map(\.signatureText).joined()) != nil else {
            throw .invalidSignature("the message body's signature is too long or too deeply nested")
        }
    }

    private static func isBasicType(_ signature: Signature) -> Bool {
        let bytes = signature.rawValue.utf8
        return bytes.count == 1 && "ybnqiuxtdsogh".utf8.contains(bytes.first!)
    }

    private static func validate(_ value: DBusValue, depth: Int) throws(DBusError) {
        guard depth <= 64 else { throw .invalidArgs("value nested more than 64 levels") }
        switch value {
        case .string(let text):
            guard isValidDBusString(text) else { throw .invalidArgs("string is not valid UTF-8 without NUL") }
        case .array(let element, let items):
            guard element.isSingleCompleteType else { throw .invalidSignature("array element type '\(element)' is not one complete type") }
            for item in items {
                guard item.hasSignature(element) else {
                    throw .invalidArgs("array of '\(element)' holds a '\(item.signatureText)'")
                }
                try validate(item, depth: depth + 1)
            }
        case .dictionary(let key, let valueType, let entries):
            // A dict entry's key is one basic type and its value one complete type; the length
            // and nesting limits are checked on the whole body's signature.
            guard Self.isBasicType(key), valueType.isSingleCompleteType else {
                throw .invalidSignature("'a{\(key.rawValue)\(valueType.rawValue)}' is not a valid dictionary type")
            }
            for entry in entries {
                guard entry.key.hasSignature(key), entry.value.hasSignature(valueType) else {
                    throw .invalidArgs("dictionary of '\(key)' to '\(valueType)' holds a '\(entry.key.signatureText)' to '\(entry.value.signatureText)'")
                }
                try validate(entry.key, depth: depth + 1)
                try validate(entry.value, depth: depth + 1)
            }
        case .structure(let fields):
            guard !fields.isEmpty else { throw .invalidArgs("a struct needs at least one field") }
            for field in fields { try validate(field, depth: depth + 1) }
        case .variant(let inner):
            try validate(inner, depth: depth + 1)
            // A basic value is one complete type; only containers need the parse.
            guard inner.isBasic || inner.signature.isSingleCompleteType else { throw .invalidSignature("variant content too deeply nested") }
        default:
            break
        }
    }

    // MARK: Appending

    private static func appendBasic<T: BitwiseCopyable>(_ iterator: inout DBusMessageIter, _ type: Int32, _ value: T) -> Bool {
        var copy = value
        return dbus_message_iter_append_basic(&iterator, type, &copy) != 0
    }

    private static func appendString(_ iterator: inout DBusMessageIter, _ type: Int32, _ text: String) -> Bool {
        text.withCString { pointer in
            var cString: UnsafePointer<CChar>? = pointer
            return dbus_message_iter_append_basic(&iterator, type, &cString) != 0
        }
    }

    private static func append(_ value: DBusValue, to iterator: inout DBusMessageIter) -> Bool {
        switch value {
        case .byte(let v): return appendBasic(&iterator, Int32(CShims_TYPE_BYTE), v)
        case .boolean(let v): return appendBasic(&iterator, Int32(CShims_TYPE_BOOLEAN), dbus_bool_t(v ? 1 : 0))
        case .int16(let v): return appendBasic(&iterator, Int32(CShims_TYPE_INT16), v)
        case .uint16(let v): return appendBasic(&iterator, Int32(CShims_TYPE_UINT16), v)
        case .int32(let v): return appendBasic(&iterator, Int32(CShims_TYPE_INT32), v)
        case .uint32(let v): return appendBasic(&iterator, Int32(CShims_TYPE_UINT32), v)
        case .int64(let v): return appendBasic(&iterator, Int32(CShims_TYPE_INT64), v)
        case .uint64(let v): return appendBasic(&iterator, Int32(CShims_TYPE_UINT64), v)
        case .double(let v): return appendBasic(&iterator, Int32(CShims_TYPE_DOUBLE), v)
        case .unixFD(let fd): return appendBasic(&iterator, Int32(CShims_TYPE_UNIX_FD), fd.rawValue)
        case .string(let text): return appendString(&iterator, Int32(CShims_TYPE_STRING), text)
        case .objectPath(let path): return appendString(&iterator, Int32(CShims_TYPE_OBJECT_PATH), path.rawValue)
        case .signature(let signature): return appendString(&iterator, Int32(CShims_TYPE_SIGNATURE), signature.rawValue)
        case .array(let element, let items):
            return appendContainer(&iterator, Int32(CShims_TYPE_ARRAY), element.rawValue) { inner in
                items.allSatisfy { append($0, to: &inner) }
            }
        case .dictionary(let key, let valueType, let entries):
            return appendContainer(&iterator, Int32(CShims_TYPE_ARRAY), "{\(key.rawValue)\(valueType.rawValue)}") { inner in
                entries.allSatisfy { entry in
                    appendContainer(&inner, Int32(CShims_TYPE_DICT_ENTRY), nil) { pair in
                        append(entry.key, to: &pair) && append(entry.value, to: &pair)
                    }
                }
            }
        case .structure(let fields):
            return appendContainer(&iterator, Int32(CShims_TYPE_STRUCT), nil) { inner in
                fields.allSatisfy { append($0, to: &inner) }
            }
        case .variant(let inner):
            return appendContainer(&iterator, Int32(CShims_TYPE_VARIANT), inner.signatureText) { contents in
                append(inner, to: &contents)
            }
        }
    }

    private static func appendContainer(
        _ iterator: inout DBusMessageIter, _ type: Int32, _ contained: String?,
        _ body: (inout DBusMessageIter) -> Bool
    ) -> Bool {
        var inner = DBusMessageIter()
        let opened: Bool
        if let contained {
            opened = contained.withCString { dbus_message_iter_open_container(&iterator, type, $0, &inner) != 0 }
        } else {
            opened = dbus_message_iter_open_container(&iterator, type, nil, &inner) != 0
        }
        guard opened else { return false }
        guard body(&inner) else {
            dbus_message_iter_abandon_container(&iterator, &inner)
            return false
        }
        return dbus_message_iter_close_container(&iterator, &inner) != 0
    }
}
