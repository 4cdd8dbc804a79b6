import Glibc

/// A network namespace, named as the kernel names it: the inode of a process's `/proc/PID/ns/net`
/// (`ls -l` shows it as `net:[4026531840]`). reachd publishes its own as `NetworkNamespace`;
/// clients compare theirs with it and never use a reachd whose namespace differs (contract 4, §2).
///
/// ```swift
/// let mine = NetworkNamespace.ofThisProcess     // NetworkNamespace(rawValue: 4026531840)
/// mine == NetworkNamespace(rawValue: reachdsProperty)
/// ```
public struct NetworkNamespace: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt64

    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// This process's namespace; nil where `/proc` is not mounted (nothing can then be compared).
    public static var ofThisProcess: NetworkNamespace? { of("/proc/self/ns/net") }

    /// The namespace of process `processID`; nil when `/proc/PID/ns/net` may not be read (another
    /// user's process: it needs ptrace access) or the process is gone.
    public static func ofProcess(_ processID: UInt32) -> NetworkNamespace? { of("/proc/\(processID)/ns/net") }

    /// Whether process `processID` is in this process's network namespace, told from
    /// `/proc/PID/net`, which every user may read where `/proc/PID/ns/net` needs ptrace rights:
    /// each network namespace has a `/proc/net` tree of its own, and its files' inode numbers are
    /// its own. nil when it cannot be told (the process is gone, or `/proc` is not mounted).
    public static func processSharesThisOne(_ processID: UInt32) -> Bool? {
        var theirs = stat(), ours = stat()
        guard stat("/proc/\(processID)/net/dev", &theirs) == 0, stat("/proc/self/net/dev", &ours) == 0 else { return nil }
        return theirs.st_dev == ours.st_dev && theirs.st_ino == ours.st_ino
    }

    private static func of(_ path: String) -> NetworkNamespace? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return NetworkNamespace(rawValue: UInt64(status.st_ino))
    }

    public var description: String { "net:[\(rawValue)]" }
}
