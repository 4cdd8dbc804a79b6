import CReachdDBus

/// A method or signal name such as `GetStatus`.
public struct MemberName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init?(rawValue: String) {
        guard libdbusAccepts(rawValue, dbus_validate_member) else { return nil }
        self.rawValue = rawValue
    }

    public init(_ text: String) throws(DBusError) {
        guard let name = MemberName(rawValue: text) else {
            throw .invalidArgs("'\(text)' is not a valid D-Bus member name")
        }
        self = name
    }

    init(validated text: String) { rawValue = text }

    public var description: String { rawValue }
}

extension MemberName: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) {
        guard let name = MemberName(rawValue: value) else { preconditionFailure("invalid member literal '\(value)'") }
        self = name
    }
}
