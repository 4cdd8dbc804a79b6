import CReachdDBus

/// A D-Bus error name such as `org.freedesktop.DBus.Error.InvalidArgs`.
public struct ErrorName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init?(rawValue: String) {
        guard libdbusAccepts(rawValue, dbus_validate_error_name) else { return nil }
        self.rawValue = rawValue
    }

    init(validated text: String) { rawValue = text }

    public var description: String { rawValue }
}

extension ErrorName: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) {
        guard let name = ErrorName(rawValue: value) else { preconditionFailure("invalid error name literal '\(value)'") }
        self = name
    }
}
