import CReachdDBus

/// Asks libdbus whether `text` passes one of its `dbus_validate_*` checks.
///
/// libdbus takes C strings, so an embedded NUL would silently cut the text
/// short and validate only the prefix; such text is rejected here first.
func libdbusAccepts(
    _ text: String,
    _ validate: (UnsafePointer<CChar>?, UnsafeMutablePointer<CReachdDBus.DBusError>?) -> dbus_bool_t
) -> Bool {
    if text.utf8.contains(0) { return false }
    return text.withCString { validate($0, nil) != 0 }
}

/// Whether libdbus will accept `text` in an outgoing message.
///
/// libdbus aborts the whole process when an invalid string is appended
/// (avahi crashed this way), so every string is checked before it is written.
/// Pure ASCII without NUL is always valid, which keeps the common case cheap.
func isValidDBusString(_ text: String) -> Bool {
    var isPlainASCII = true
    for byte in text.utf8 {
        if byte == 0 { return false }
        if byte >= 0x80 { isPlainASCII = false }
    }
    return isPlainASCII || libdbusAccepts(text, dbus_validate_utf8)
}
