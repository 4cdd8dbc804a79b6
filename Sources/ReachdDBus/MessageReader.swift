import CReachdDBus
import CReachdDBusShims

/// Turns a received libdbus message into a `Message` value.
///
/// libdbus has already validated every incoming message (a peer cannot hand
/// us a bad signature or invalid UTF-8), so reading follows the iterator's
/// types without re-checking them.
enum MessageReader {
    /// `body: false` reads the header alone, with the body's signature as the header gives it
    /// (`Message.headerSignature`): what is checked before a body is worth decoding.
    static func read(_ raw: OpaquePointer, body: Bool = true) -> Message {
        var message = Message(kind: kind(of: dbus_message_get_type(raw)))
        message.path = dbus_message_get_path(raw).map { ObjectPath(validated: String(cString: $0)) }
        message.interface = dbus_message_get_interface(raw).map { InterfaceName(validated: String(cString: $0)) }
        message.member = dbus_message_get_member(raw).map { MemberName(validated: String(cString: $0)) }
        message.errorName = dbus_message_get_error_name(raw).map { ErrorName(validated: String(cString: $0)) }
        message.destination = dbus_message_get_destination(raw).map { BusName(validated: String(cString: $0)) }
        message.sender = dbus_message_get_sender(raw).map { BusName(validated: String(cString: $0)) }
        message.serial = dbus_message_get_serial(raw)
        message.replySerial = dbus_message_get_reply_serial(raw)
        message.noReplyExpected = dbus_message_get_no_reply(raw) != 0
        if body {
            message.body = readBody(raw)
        } else {
            message.headerSignature = Signature(validated: dbus_message_get_signature(raw).map { String(cString: $0) } ?? "")
        }
        return message
    }

    static func readBody(_ raw: OpaquePointer) -> [DBusValue] {
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(raw, &iterator) != 0 else { return [] }
        return readSequence(&iterator)
    }

    private static func kind(of type: Int32) -> Message.Kind {
        switch type {
        case DBUS_MESSAGE_TYPE_METHOD_RETURN: .methodReturn
        case DBUS_MESSAGE_TYPE_ERROR: .error
        case DBUS_MESSAGE_TYPE_SIGNAL: .signal
        default: .methodCall
        }
    }

    /// Reads every value from the iterator's position to its end.
    private static func readSequence(_ iterator: inout DBusMessageIter) -> [DBusValue] {
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iterator) != CShims_TYPE_INVALID {
            values.append(readValue(&iterator))
            dbus_message_iter_next(&iterator)
        }
        return values
    }

    private static func basic<T: BitwiseCopyable>(_ iterator: inout DBusMessageIter, _ initial: T) -> T {
        var value = initial
        dbus_message_iter_get_basic(&iterator, &value)
        return value
    }

    private static func string(_ iterator: inout DBusMessageIter) -> String {
        var pointer: UnsafePointer<CChar>? = nil
        dbus_message_iter_get_basic(&iterator, &pointer)
        return pointer.map { String(cString: $0) } ?? ""
    }

    private static func readValue(_ iterator: inout DBusMessageIter) -> DBusValue {
        switch Int(dbus_message_iter_get_arg_type(&iterator)) {
        case Int(CShims_TYPE_BYTE): return .byte(basic(&iterator, UInt8(0)))
        case Int(CShims_TYPE_BOOLEAN): return .boolean(basic(&iterator, dbus_bool_t(0)) != 0)
        case Int(CShims_TYPE_INT16): return .int16(basic(&iterator, Int16(0)))
        case Int(CShims_TYPE_UINT16): return .uint16(basic(&iterator, UInt16(0)))
        case Int(CShims_TYPE_INT32): return .int32(basic(&iterator, Int32(0)))
        case Int(CShims_TYPE_UINT32): return .uint32(basic(&iterator, UInt32(0)))
        case Int(CShims_TYPE_INT64): return .int64(basic(&iterator, Int64(0)))
        case Int(CShims_TYPE_UINT64): return .uint64(basic(&iterator, UInt64(0)))
        case Int(CShims_TYPE_DOUBLE): return .double(basic(&iterator, Double(0)))
        case Int(CShims_TYPE_STRING): return .string(string(&iterator))
        case Int(CShims_TYPE_OBJECT_PATH): return .objectPath(ObjectPath(validated: string(&iterator)))
        case Int(CShims_TYPE_SIGNATURE): return .signature(Signature(validated: string(&iterator)))
        case Int(CShims_TYPE_UNIX_FD): return .unixFD(UnixFileDescriptor(taking: basic(&iterator, Int32(-1))))
        case Int(CShims_TYPE_VARIANT):
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &inner)
            return .variant(readValue(&inner))
        case Int(CShims_TYPE_STRUCT):
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &inner)
            return .structure(readSequence(&inner))
        case Int(CShims_TYPE_ARRAY):
            return readArray(&iterator)
        default:
            preconditionFailure("libdbus returned a type code it validated as impossible")
        }
    }

    private static func readArray(_ iterator: inout DBusMessageIter) -> DBusValue {
        let arraySignature = ownedString(dbus_message_iter_get_signature(&iterator))
        let element = Signature(validated: String(arraySignature.dropFirst()))
        var inner = DBusMessageIter()
        dbus_message_iter_recurse(&iterator, &inner)
        guard element.rawValue.hasPrefix("{") else {
            return .array(element: element, readSequence(&inner))
        }
        // A dictionary: each element is a dict entry holding exactly a key and a value.
        let entryTypes = Signature(validated: String(element.rawValue.dropFirst().dropLast())).completeTypes
        var entries: [DictionaryEntry] = []
        while dbus_message_iter_get_arg_type(&inner) == CShims_TYPE_DICT_ENTRY {
            var entry = DBusMessageIter()
            dbus_message_iter_recurse(&inner, &entry)
            let key = readValue(&entry)
            dbus_message_iter_next(&entry)
            let value = readValue(&entry)
            entries.append(DictionaryEntry(key, value))
            dbus_message_iter_next(&inner)
        }
        return .dictionary(key: entryTypes[0], value: entryTypes[1], entries)
    }

    /// Copies and frees a string that libdbus allocated for us.
    private static func ownedString(_ pointer: UnsafeMutablePointer<CChar>?) -> String {
        guard let pointer else { return "" }
        defer { dbus_free(pointer) }
        return String(cString: pointer)
    }
}
