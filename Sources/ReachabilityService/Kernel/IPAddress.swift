import Glibc

/// An IPv4 or IPv6 address, as the kernel takes it in a route lookup.
///
/// ```swift
/// IPAddress(literal: "fe80::1%eth0")   // .v6 with zone "eth0"
/// ```
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    public enum Family: Sendable, Hashable { case v4, v6 }

    public let family: Family
    /// 4 or 16 bytes in network order.
    public let bytes: [UInt8]
    /// An IPv6 zone (interface name or index), "" when none.
    public let zone: String

    public init(family: Family, bytes: [UInt8], zone: String = "") {
        self.family = family
        self.bytes = bytes
        self.zone = zone
    }

    /// Parses an IPv4 dotted quad or an IPv6 literal with an optional `%zone`.
    public init?(literal: String) {
        if literal.utf8.contains(0) { return nil }
        if let bytes = Self.parse(literal, family: AF_INET, size: 4) {
            self.init(family: .v4, bytes: bytes)
            return
        }
        var address = Substring(literal)
        var zone = ""
        if let percent = literal.firstIndex(of: "%") {
            address = literal[..<percent]
            zone = String(literal[literal.index(after: percent)...])
            guard Self.isValidZone(zone) else { return nil }
        }
        guard let bytes = Self.parse(String(address), family: AF_INET6, size: 16) else { return nil }
        self.init(family: .v6, bytes: bytes, zone: zone)
    }

    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let text = bytes.withUnsafeBytes { raw in
            inet_ntop(family == .v4 ? AF_INET : AF_INET6, raw.baseAddress, &buffer, socklen_t(buffer.count)) != nil
                ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
        }
        return zone.isEmpty ? text : text + "%" + zone
    }

    /// The interface index the zone names, 0 when none or unknown.
    var zoneIndex: UInt32 {
        guard !zone.isEmpty else { return 0 }
        if let number = UInt32(zone) { return number }
        return if_nametoindex(zone)
    }

    private static func parse(_ text: String, family: Int32, size: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: size)
        let ok = bytes.withUnsafeMutableBytes { raw in inet_pton(family, text, raw.baseAddress) == 1 }
        return ok ? bytes : nil
    }

    /// An interface name (at most 15 bytes, no `/`, no spaces) or a number.
    private static func isValidZone(_ zone: String) -> Bool {
        !zone.isEmpty && zone.utf8.count <= 15
            && zone.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "%") }
    }
}
