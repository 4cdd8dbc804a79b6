import Glibc

/// A failed system call: which call, and the errno it left. The one errno
/// error type: the loop, the D-Bus layer and the netlink code all throw it.
public struct SystemCallError: Error, Sendable, CustomStringConvertible {
    public let call: String
    public let errno: Int32

    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    public var description: String { "\(call) failed: \(String(cString: strerror(errno))) (errno \(errno))" }
}

/// Runs a system call, retrying on EINTR, and turns -1 into a `SystemCallError`.
/// The one place that reads `errno`, for this module and the ones built on it.
///
/// ```swift
/// let descriptor = try systemCall("socket(AF_NETLINK)") { socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE) }
/// ```
@discardableResult
public func systemCall<T: FixedWidthInteger>(_ name: String, _ body: () -> T) throws(SystemCallError) -> T {
    while true {
        let result = body()
        if result != -1 { return result }
        let code = Glibc.errno
        if code == EINTR { continue }
        throw SystemCallError(call: name, errno: code)
    }
}
