import CReachdDBus

/// A bus name, unique (`:1.42`) or well-known (`io.reachd.Reachability1`).
public struct BusName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init?(rawValue: String) {
        guard libdbusAccepts(rawValue, dbus_validate_bus_name) else { return nil }
        self.rawValue = rawValue
    }

    public init(_ text: String) throws(DBusError) {
        guard let name = BusName(rawValue: text) else {
            throw .invalidArgs("'\(text)' is not a valid D-Bus bus name")
        }
        self = name
    }

    init(validated text: String) { rawValue = text }

    /// The message bus itself.
    public static let bus = BusName(validated: "org.freedesktop.DBus")

    /// Unique names start with a colon and are given out by the bus.
    public var isUnique: Bool { rawValue.hasPrefix(":") }

    public var description: String { rawValue }
}

extension BusName: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) {
        guard let name = BusName(rawValue: value) else { preconditionFailure("invalid bus name literal '\(value)'") }
        self = name
    }
}
