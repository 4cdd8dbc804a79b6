import Glibc

/// A failed system call: which call, and the errno it left.
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
/// The one place in this module that reads `errno`.
@discardableResult
func systemCall<T: FixedWidthInteger>(_ name: String, _ body: () -> T) throws(SystemCallError) -> T {
    while true {
        let result = body()
        if result != -1 { return result }
        let code = Glibc.errno
        if code == EINTR { continue }
        throw SystemCallError(call: name, errno: code)
    }
}
