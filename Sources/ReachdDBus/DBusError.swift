/// An error as D-Bus carries it: a name that says what went wrong and a sentence for people.
///
/// Method handlers throw these to answer a call with an error reply; calls
/// that fail on the bus throw them back to the caller.
///
/// ```swift
/// throw DBusError.invalidArgs("expected a host name, got an empty string")
/// ```
public struct DBusError: Error, Hashable, Sendable, CustomStringConvertible {
    public var name: ErrorName
    public var message: String

    public init(name: ErrorName, message: String) {
        self.name = name
        self.message = message
    }

    public var description: String { "\(name.rawValue): \(message)" }

    public static func failed(_ message: String) -> DBusError {
        DBusError(name: "org.freedesktop.DBus.Error.Failed", message: message)
    }
    public static func invalidArgs(_ message: String) -> DBusError {
        DBusError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: message)
    }
    public static func invalidSignature(_ message: String) -> DBusError {
        DBusError(name: "org.freedesktop.DBus.Error.InvalidSignature", message: message)
    }
    public static func limitsExceeded(_ message: String) -> DBusError {
        DBusError(name: "org.freedesktop.DBus.Error.LimitsExceeded", message: message)
    }
    public static func unknownMethod(_ message: String) -> DBusError {
        DBusError(name: "org.freedesktop.DBus.Error.UnknownMethod", message: message)
    }
    public static func unknownObject(_ message: String) -> DBusError {
        DBusError(name: "org.freedesktop.DBus.Error.UnknownObject", message: message)
    }
    public static func unknownInterface(_ message: String) -> DBusError {
        DBusError(name: "org.freedesktop.DBus.Error.UnknownInterface", message: message)
    }
    public static func unknownProperty(_ message: String) -> DBusError {
        DBusError(name: "org.freedesktop.DBus.Error.UnknownProperty", message: message)
    }
    public static func propertyReadOnly(_ message: String) -> DBusError {
        DBusError(name: "org.freedesktop.DBus.Error.PropertyReadOnly", message: message)
    }
    public static func notSupported(_ message: String) -> DBusError {
        DBusError(name: "org.freedesktop.DBus.Error.NotSupported", message: message)
    }
    public static func noReply(_ message: String) -> DBusError {
        DBusError(name: "org.freedesktop.DBus.Error.NoReply", message: message)
    }
    public static func disconnected(_ message: String) -> DBusError {
        DBusError(name: "org.freedesktop.DBus.Error.Disconnected", message: message)
    }
    public static func nameHasNoOwner(_ message: String) -> DBusError {
        DBusError(name: "org.freedesktop.DBus.Error.NameHasNoOwner", message: message)
    }
    public static func noMemory(_ message: String) -> DBusError {
        DBusError(name: "org.freedesktop.DBus.Error.NoMemory", message: message)
    }
}

/// There is no session bus to connect to: `DBUS_SESSION_BUS_ADDRESS` is not set and
/// `$XDG_RUNTIME_DIR/bus` does not exist. A type of its own, so that callers can tell
/// "no bus here" from a bus that answered with an error.
public struct NoSessionBusError: Error, Hashable, Sendable, CustomStringConvertible {
    public init() {}

    /// The D-Bus error name a client library reports it under.
    public static let name: ErrorName = "org.freedesktop.DBus.Error.NotSupported"

    public var description: String {
        "no session bus: DBUS_SESSION_BUS_ADDRESS is not set and $XDG_RUNTIME_DIR/bus does not exist"
    }
}
