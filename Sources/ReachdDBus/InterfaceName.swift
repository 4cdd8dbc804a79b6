import CReachdDBus

/// An interface name such as `org.freedesktop.DBus.Properties`.
public struct InterfaceName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init?(rawValue: String) {
        guard libdbusAccepts(rawValue, dbus_validate_interface) else { return nil }
        self.rawValue = rawValue
    }

    public init(_ text: String) throws(DBusError) {
        guard let name = InterfaceName(rawValue: text) else {
            throw .invalidArgs("'\(text)' is not a valid D-Bus interface name")
        }
        self = name
    }

    init(validated text: String) { rawValue = text }

    public static let bus = InterfaceName(validated: "org.freedesktop.DBus")
    public static let properties = InterfaceName(validated: "org.freedesktop.DBus.Properties")
    public static let introspectable = InterfaceName(validated: "org.freedesktop.DBus.Introspectable")
    public static let peer = InterfaceName(validated: "org.freedesktop.DBus.Peer")
    static let local = InterfaceName(validated: "org.freedesktop.DBus.Local")

    public var description: String { rawValue }
}

extension InterfaceName: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) {
        guard let name = InterfaceName(rawValue: value) else { preconditionFailure("invalid interface literal '\(value)'") }
        self = name
    }
}
