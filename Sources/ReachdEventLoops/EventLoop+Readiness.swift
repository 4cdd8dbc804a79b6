import CReachdEventLoops

extension EventLoop {
    /// What a watched descriptor is ready for, in epoll's bits, so that code
    /// on the loop never needs the epoll headers.
    ///
    /// ```swift
    /// try loop.watch(socket, for: [.readable, .writable]) { ready in
    ///     if ready.contains(.hangUp) { ... }
    /// }
    /// ```
    public struct Readiness: OptionSet, Sendable {
        public let rawValue: UInt32

        public init(rawValue: UInt32) {
            self.rawValue = rawValue
        }

        public static let readable = Readiness(rawValue: EPOLLIN.rawValue)
        public static let writable = Readiness(rawValue: EPOLLOUT.rawValue)
        /// Reported whether asked for or not.
        public static let error = Readiness(rawValue: EPOLLERR.rawValue)
        /// Reported whether asked for or not.
        public static let hangUp = Readiness(rawValue: EPOLLHUP.rawValue)
    }
}
