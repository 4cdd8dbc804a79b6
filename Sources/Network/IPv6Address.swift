public import FoundationEssentials
import Glibc

/// An IPv6 address, optionally scoped to an interface (`fe80::1%eth0`): Apple's `IPv6Address`.
///
/// ```swift
/// let router = IPv6Address("fe80::1%eth0")!
/// router.isLinkLocal        // true
/// router.interface?.name    // "eth0"
/// IPv6Address("::ffff:192.0.2.1")?.asIPv4   // 192.0.2.1
/// ```
public struct IPv6Address: IPAddress, Hashable, CustomDebugStringConvertible {
    /// The sixteen bytes in network order.
    private let bytes: [UInt8]
    public let interface: NWInterface?

    public static let any = IPv6Address(bytes: [UInt8](repeating: 0, count: 16))
    public static let loopback = IPv6Address(bytes: [UInt8](repeating: 0, count: 15) + [1])

    init(bytes: [UInt8], interface: NWInterface? = nil) {
        self.bytes = bytes
        self.interface = interface
    }

    /// The text forms of RFC 4291 (`2001:db8::1`, `::ffff:192.0.2.1`), optionally `%interface`;
    /// nil for anything else.
    public init?(_ string: String) {
        let (address, scope) = ScopedAddressText(string).parts
        var value = in6_addr()
        guard inet_pton(AF_INET6, address, &value) == 1 else { return nil }
        self.init(bytes: withUnsafeBytes(of: value) { Array($0) }, interface: scope.map(NWInterface.init(scope:)))
    }

    /// Sixteen bytes in network order; nil for any other count.
    public init?(_ rawValue: Data, _ interface: NWInterface? = nil) {
        guard rawValue.count == 16 else { return nil }
        self.init(bytes: Array(rawValue), interface: interface)
    }

    public var rawValue: Data { Data(bytes) }

    public var isAny: Bool { bytes.allSatisfy { $0 == 0 } }
    public var isLoopback: Bool { bytes == Self.loopback.bytes }
    /// fe80::/10.
    public var isLinkLocal: Bool { bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 }
    /// ff00::/8.
    public var isMulticast: Bool { bytes[0] == 0xFF }
    /// ::ffff:a.b.c.d.
    public var isIPv4Mapped: Bool { bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF }
    /// ::a.b.c.d (deprecated by RFC 4291, still recognised); neither :: nor ::1.
    var isIPv4Compatible: Bool { bytes[0..<12].allSatisfy { $0 == 0 } && !isAny && bytes != Self.loopback.bytes }

    /// The IPv4 address inside an IPv4-mapped or IPv4-compatible address.
    public var asIPv4: IPv4Address? {
        guard isIPv4Mapped || isIPv4Compatible else { return nil }
        return IPv4Address(bytes: Array(bytes[12...]), interface: interface)
    }

    public var debugDescription: String {
        var value = in6_addr()
        withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: bytes) }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let address = inet_ntop(AF_INET6, &value, &text, socklen_t(text.count)) != nil
            ? String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
        return address + (interface.map { "%\($0.name)" } ?? "")
    }
}
