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
        switch parse(address, { entries in entries.isEmpty ? "names no address" : nil }) {
        case .success(let problem): problem
        case .failure(let reason): reason.message
        }
    }

    /// The socket file `address` names when it is one `unix:path=` entry, nil for anything else
    /// (several entries, an abstract socket, TCP, an address libdbus cannot read): what a client
    /// that finds no bus there can wait for, as a boot makes it.
    ///
    /// ```swift
    /// BusAddress.socketPath(in: "unix:path=/run/dbus/system_bus_socket")   // "/run/dbus/system_bus_socket"
    /// BusAddress.socketPath(in: "unix:abstract=/tmp/dbus-x")                // nil
    /// ```
    public static func socketPath(in address: String) -> String? {
        let path = parse(address) { entries -> String? in
            guard entries.count == 1, let entry = entries[0],
                  let method = dbus_address_entry_get_method(entry), String(cString: method) == "unix",
                  let path = dbus_address_entry_get_value(entry, "path") else { return nil }
            return String(cString: path)
        }
        return (try? path.get()) ?? nil
    }

    private struct Unreadable: Error {
        let message: String
    }

    /// `body` over libdbus's entries of `address`, or why libdbus cannot read it.
    private static func parse<T>(_ address: String, _ body: (UnsafeBufferPointer<OpaquePointer?>) -> T) -> Result<T, Unreadable> {
        var error = CReachdDBus.DBusError()
        dbus_error_init(&error)
        var entries: UnsafeMutablePointer<OpaquePointer?>?
        var count: Int32 = 0
        guard dbus_parse_address(address, &entries, &count, &error) != 0 else {
            defer { dbus_error_free(&error) }
            return .failure(Unreadable(message: error.message.map { String(cString: $0) } ?? "not a D-Bus address"))
        }
        defer { dbus_address_entries_free(entries) }
        return .success(body(UnsafeBufferPointer(start: entries, count: Int(count))))
    }
}
