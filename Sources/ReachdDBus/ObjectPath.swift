import CReachdDBus

/// A D-Bus object path such as `/io/reachd/Reachability1`, validated when made.
///
/// ```swift
/// let path = try ObjectPath("/io/reachd/Reachability1")
/// ```
public struct ObjectPath: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Returns nil unless libdbus accepts `rawValue` as an object path.
    public init?(rawValue: String) {
        guard libdbusAccepts(rawValue, dbus_validate_path) else { return nil }
        self.rawValue = rawValue
    }

    /// Throws `org.freedesktop.DBus.Error.InvalidArgs` for an invalid path.
    public init(_ text: String) throws(DBusError) {
        guard let path = ObjectPath(rawValue: text) else {
            throw .invalidArgs("'\(text)' is not a valid D-Bus object path")
        }
        self = path
    }

    /// Trusted constants: an invalid literal is a programming error.
    init(validated text: String) { rawValue = text }

    public static let root = ObjectPath(validated: "/")

    public var description: String { rawValue }

    public static func < (lhs: ObjectPath, rhs: ObjectPath) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `child("Monitors")` on `/io/reachd` is `/io/reachd/Monitors`.
    public func appending(_ element: String) throws(DBusError) -> ObjectPath {
        try ObjectPath(rawValue == "/" ? "/" + element : rawValue + "/" + element)
    }

    /// True when `self` is `other` or lies below it (`/a/b` is inside `/a`).
    public func isInside(_ other: ObjectPath) -> Bool {
        other.rawValue == "/" || rawValue == other.rawValue || rawValue.hasPrefix(other.rawValue + "/")
    }
}

extension ObjectPath: ExpressibleByStringLiteral {
    /// For constants in code; an invalid literal stops the program.
    public init(stringLiteral value: String) {
        guard let path = ObjectPath(rawValue: value) else { preconditionFailure("invalid object path literal '\(value)'") }
        self = path
    }
}
