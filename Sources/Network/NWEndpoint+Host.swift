extension NWEndpoint {
    /// A name or an address: Apple's `NWEndpoint.Host`.
    ///
    /// ```swift
    /// let host: NWEndpoint.Host = "192.0.2.1"   // .ipv4(192.0.2.1)
    /// NWEndpoint.Host("example.com")            // .name("example.com", nil)
    /// ```
    public enum Host: Hashable, Sendable, CustomDebugStringConvertible, ExpressibleByStringLiteral {
        case name(String, NWInterface?)
        case ipv4(IPv4Address)
        case ipv6(IPv6Address)

        /// An address when `string` is one (IPv4 first, then IPv6), a name otherwise.
        public init(_ string: String) {
            if let address = IPv4Address(string) {
                self = .ipv4(address)
            } else if let address = IPv6Address(string) {
                self = .ipv6(address)
            } else {
                self = .name(string, nil)
            }
        }

        public init(stringLiteral value: String) { self.init(value) }

        public var interface: NWInterface? {
            switch self {
            case .name(_, let interface): interface
            case .ipv4(let address): address.interface
            case .ipv6(let address): address.interface
            }
        }

        public var debugDescription: String {
            switch self {
            case .name(let name, _): name
            case .ipv4(let address): address.debugDescription
            case .ipv6(let address): address.debugDescription
            }
        }
    }
}
