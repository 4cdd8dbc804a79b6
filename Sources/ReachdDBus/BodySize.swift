import CReachdDBus
import CReachdDBusShims
import Glibc

/// How much a received message's body would cost to decode, told before anything is copied:
/// each value as one `DBusValue`, strings also by their length (libdbus hands a pointer),
/// arrays of fixed-size values by their element count (O(1) in libdbus). A body over the limit
/// is refused at a cost that does not grow with its size (contract 7, §2: a 30 MiB `ay` cost
/// reachd 1.38 GB and 12 s of CPU when it was decoded first).
enum BodySize {
    /// What a connection decodes at most of one incoming call or signal, in bytes of decoded
    /// values. reachd's largest messages (a `GetAll` reply, NetworkManager's device lists) are a
    /// few KiB; the library's own tests send a 1 MiB string and a 64 KiB array (2.5 MiB decoded).
    static let limit = 8 << 20

    /// Whether `raw`'s body takes at most `limit` bytes to decode.
    static func fits(_ raw: OpaquePointer, within limit: Int = BodySize.limit) -> Bool {
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(raw, &iterator) != 0 else { return true }
        var budget = limit
        return fits(&iterator, &budget)
    }

    /// Walks the values from the iterator to its end, taking each one's cost from `budget`;
    /// false as soon as it runs out.
    private static func fits(_ iterator: inout DBusMessageIter, _ budget: inout Int) -> Bool {
        while true {
            let type = dbus_message_iter_get_arg_type(&iterator)
            if type == CShims_TYPE_INVALID { return true }
            switch Int(type) {
            case Int(CShims_TYPE_STRING), Int(CShims_TYPE_OBJECT_PATH), Int(CShims_TYPE_SIGNATURE):
                var pointer: UnsafePointer<CChar>? = nil
                dbus_message_iter_get_basic(&iterator, &pointer)
                budget -= (pointer.map { Int(strlen($0)) } ?? 0) + valueSize
            case Int(CShims_TYPE_ARRAY):
                let element = dbus_message_iter_get_element_type(&iterator)
                if dbus_type_is_fixed(element) != 0 {
                    budget -= (Int(dbus_message_iter_get_element_count(&iterator)) + 1) * valueSize
                } else {
                    budget -= valueSize
                    guard budget >= 0 else { return false }
                    var inner = DBusMessageIter()
                    dbus_message_iter_recurse(&iterator, &inner)
                    guard fits(&inner, &budget) else { return false }
                }
            case Int(CShims_TYPE_VARIANT), Int(CShims_TYPE_STRUCT), Int(CShims_TYPE_DICT_ENTRY):
                budget -= valueSize
                guard budget >= 0 else { return false }
                var inner = DBusMessageIter()
                dbus_message_iter_recurse(&iterator, &inner)
                guard fits(&inner, &budget) else { return false }
            default:
                budget -= valueSize
            }
            guard budget >= 0 else { return false }
            dbus_message_iter_next(&iterator)
        }
    }

    /// What one value costs once decoded: a `DBusValue` in an array.
    private static let valueSize = MemoryLayout<DBusValue>.stride
}
