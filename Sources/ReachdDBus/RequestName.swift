/// Flags for `RequestName` (mirroring DBUS_NAME_FLAG_*; pinned in CReachdDBusShims).
public struct RequestNameFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Let a later `replaceExisting` request take the name from us.
    public static let allowReplacement = RequestNameFlags(rawValue: 0x1)
    /// Take the name from its owner if the owner allows replacement.
    public static let replaceExisting = RequestNameFlags(rawValue: 0x2)
    /// Fail instead of waiting in the queue.
    public static let doNotQueue = RequestNameFlags(rawValue: 0x4)
}

/// The bus's answer to `RequestName` (DBUS_REQUEST_NAME_REPLY_*).
public enum RequestNameReply: UInt32, Sendable {
    case primaryOwner = 1, inQueue = 2, exists = 3, alreadyOwner = 4
}

/// The bus's answer to `ReleaseName` (DBUS_RELEASE_NAME_REPLY_*).
public enum ReleaseNameReply: UInt32, Sendable {
    case released = 1, nonExistent = 2, notOwner = 3
}
