extension NWEndpoint {
    /// A port number: Apple's `NWEndpoint.Port`.
    ///
    /// ```swift
    /// let port: NWEndpoint.Port = 443        // .https
    /// NWEndpoint.Port("8080")?.rawValue      // 8080
    /// NWEndpoint.Port(rawValue: 0) == .any   // true
    /// ```
    public struct Port: Hashable, Sendable, RawRepresentable, CustomDebugStringConvertible, ExpressibleByIntegerLiteral {
        public let rawValue: UInt16

        public static let any: Port = 0
        public static let ssh: Port = 22
        public static let smtp: Port = 25
        public static let http: Port = 80
        public static let pop: Port = 110
        public static let imap: Port = 143
        public static let https: Port = 443
        public static let imaps: Port = 993
        public static let socks: Port = 1080

        public init?(rawValue: UInt16) { self.rawValue = rawValue }

        /// Decimal digits, 0 through 65535; nil for anything else.
        public init?(_ string: String) {
            guard let value = UInt16(string) else { return nil }
            rawValue = value
        }

        public init(integerLiteral value: UInt16) { rawValue = value }

        public var debugDescription: String { String(rawValue) }
    }
}
