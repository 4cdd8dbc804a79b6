import Glibc

/// A file descriptor carried in a message (`h`). Owns the descriptor and closes it
/// when the last reference goes.
///
/// libdbus duplicates descriptors both ways: appending one sends a copy, and
/// reading one hands us a fresh duplicate that nobody else will close.
public final class UnixFileDescriptor: Hashable, Sendable {
    public let rawValue: Int32

    /// Takes ownership of `rawValue`.
    public init(taking rawValue: Int32) {
        self.rawValue = rawValue
    }

    deinit { close(rawValue) }

    public static func == (lhs: UnixFileDescriptor, rhs: UnixFileDescriptor) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
