public import FoundationEssentials
import Glibc

/// An IPv4 address, optionally scoped to an interface: Apple's `IPv4Address`.
///
/// ```swift
/// let gateway = IPv4Address("192.0.2.1")!
/// gateway.rawValue          // 4 bytes: c0 00 02 01
/// IPv4Address("300.1.1.1")  // nil
/// ```
public struct IPv4Address: IPAddress, Hashable, CustomDebugStringConvertible {
    /// The four bytes in network order.
    private let bytes: [UInt8]
    public let interface: NWInterface?

    public static let any = IPv4Address(bytes: [0, 0, 0, 0])
    public static let broadcast = IPv4Address(bytes: [255, 255, 255, 255])
    public static let loopback = IPv4Address(bytes: [127, 0, 0, 1])
    public static let allHostsGroup = IPv4Address(bytes: [224, 0, 0, 1])
    public static let allRoutersGroup = IPv4Address(bytes: [224, 0, 0, 2])
    public static let allReportsGroup = IPv4Address(bytes: [224, 0, 0, 22])
    public static let mdnsGroup = IPv4Address(bytes: [224, 0, 0, 251])

    init(bytes: [UInt8], interface: NWInterface? = nil) {
        self.bytes = bytes
        self.interface = interface
    }

    /// Dotted decimal (`192.0.2.1`), optionally `%interface`; nil for anything else.
    public init?(_ string: String) {
        let (address, scope) = ScopedAddressText(string).parts
        var value = in_addr()
        guard inet_pton(AF_INET, address, &value) == 1 else { return nil }
        self.init(bytes: withUnsafeBytes(of: value) { Array($0) }, interface: scope.map(NWInterface.init(scope:)))
    }

    /// Four bytes in network order; nil for any other count.
    public init?(_ rawValue: Data, _ interface: NWInterface? = nil) {
        guard rawValue.count == 4 else { return nil }
        self.init(bytes: Array(rawValue), interface: interface)
    }

    public var rawValue: Data { Data(bytes) }

    /// 127.0.0.0/8.
    public var isLoopback: Bool { bytes[0] == 127 }
    /// 169.254.0.0/16.
    public var isLinkLocal: Bool { bytes[0] == 169 && bytes[1] == 254 }
    /// 224.0.0.0/4.
    public var isMulticast: Bool { bytes[0] & 0xF0 == 0xE0 }

    public var debugDescription: String {
        bytes.map(String.init).joined(separator: ".") + (interface.map { "%\($0.name)" } ?? "")
    }
}
