import Glibc

/// An IPv4 or IPv6 address, as the kernel takes it in a route lookup.
///
/// ```swift
/// IPAddress(strict: "fe80::1%eth0")       // .v6 with zone "eth0"
/// IPAddress(strict: "::ffff:127.0.0.1")   // .v4 127.0.0.1
/// IPAddress(strict: "127.1")              // nil: not a strict form
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

    /// Parses the strict forms `inet_pton(3)` takes: an IPv4 dotted quad of
    /// four decimal numbers, or an IPv6 literal with an optional `%zone`.
    /// An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) becomes the IPv4
    /// address it stands for, so it is judged as that address is; a mapped
    /// address with a zone is nil. The zone is checked for its spelling
    /// only, not for whether the interface exists.
    public init?(strict literal: String) {
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
            guard Self.isValidZoneSpelling(zone) else { return nil }
        }
        guard let bytes = Self.parse(String(address), family: AF_INET6, size: 16) else { return nil }
        if Self.isIPv4Mapped(bytes) {
            guard zone.isEmpty else { return nil }
            self.init(family: .v4, bytes: Array(bytes[12...]))
            return
        }
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
        return Self.systemInterfaceIndex(zone) ?? 0
    }

    /// The index of the interface a zone names on this machine: a number is
    /// an index (if an interface has it), anything else a name. nil when no
    /// interface answers to it.
    package static func systemInterfaceIndex(_ zone: String) -> UInt32? {
        if isNumericZone(zone) {
            guard let index = UInt32(zone), LinkInspector.name(ofIndex: index) != nil else { return nil }
            return index
        }
        let index = if_nametoindex(zone)
        return index == 0 ? nil : index
    }

    /// A zone of decimal digits only is an interface index (`fe80::1%2`).
    static func isNumericZone(_ zone: String) -> Bool {
        !zone.isEmpty && zone.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    private static func parse(_ text: String, family: Int32, size: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: size)
        let ok = bytes.withUnsafeMutableBytes { raw in inet_pton(family, text, raw.baseAddress) == 1 }
        return ok ? bytes : nil
    }

    /// `::ffff:a.b.c.d` (RFC 4291 section 2.5.5.2).
    private static func isIPv4Mapped(_ bytes: [UInt8]) -> Bool {
        bytes.count == 16 && bytes[..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff
    }

    /// An interface name (at most 15 bytes, no `/`, no spaces) or a number.
    private static func isValidZoneSpelling(_ zone: String) -> Bool {
        !zone.isEmpty && zone.utf8.count <= 15
            && zone.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "%") }
    }
}
