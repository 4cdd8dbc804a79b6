import CReachdDBus

/// A D-Bus address as libdbus reads it (`unix:path=/run/dbus/system_bus_socket`,
/// `tcp:host=…,port=…`; several separated by `;`).
///
/// ```swift
/// BusAddress.problem(in: "garbage")   // "Address does not contain a colon"
/// BusAddress.problem(in: "unix:path=/run/dbus/system_bus_socket")   // nil
/// ```
public enum BusAddress {
    /// Why libdbus could not read `address` at all, nil when it can: what a connection to it
    /// would fail on before trying, so that a setting can be refused where it is given, not
    /// only warned about when it is used.
    public static func problem(in address: String) -> String? {
        var error = CReachdDBus.DBusError()
        dbus_error_init(&error)
        var entries: UnsafeMutablePointer<OpaquePointer?>?
        var count: Int32 = 0
        guard dbus_parse_address(address, &entries, &count, &error) != 0 else {
            defer { dbus_error_free(&error) }
            return error.message.map { String(cString: $0) } ?? "not a D-Bus address"
        }
        dbus_address_entries_free(entries)
        return count == 0 ? "names no address" : nil
    }
}
