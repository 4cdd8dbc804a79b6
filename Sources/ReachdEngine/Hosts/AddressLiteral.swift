import Glibc

/// reachd's one address grammar, for `ManagerForAddress`, `ManagerForDomain`
/// and `CheckHost` alike: the strict forms `inet_pton(3)` takes, nothing else.
///
/// The C library's older reader, `inet_aton(3)`, also takes `127.1`,
/// `0177.0.0.1` (octal) and `0x7f.0.0.1` (hex), and `getaddrinfo` reads a
/// "name" such as `1.2.3` that way (as 1.2.0.3). Other programs read those
/// forms differently or not at all, so a host that looks like a numeric
/// address is always an address attempt: either a strict literal or refused
/// with a sentence naming the strict form. It never falls through to the
/// resolver as a name. Pure: whether a zone's interface exists is checked by
/// `HostSpecification`, the one place host parsing does I/O.
///
/// ```swift
/// AddressLiteral.read("::ffff:127.0.0.1")   // .address(127.0.0.1)
/// AddressLiteral.read("example.org")        // .name
/// AddressLiteral.read("127.1")              // .refused("'127.1' is a legacy IPv4 form …")
/// ```
enum AddressLiteral {
    enum Reading: Sendable, Equatable {
        /// A strict literal, in canonical form (IPv4-mapped IPv6 becomes IPv4).
        case address(IPAddress)
        /// Not meant as an address: read it as a DNS name.
        case name
        /// Meant as an address, but not in a strict form; the sentence says why.
        case refused(String)
    }

    static func read(_ text: String) -> Reading {
        if let address = IPAddress(strict: text) { return .address(address) }
        if text.contains(":") || text.contains("%") { return .refused(ipv6Refusal(text)) }
        if isNumericIPv4Attempt(text) { return .refused(ipv4Refusal(text)) }
        return .name
    }

    /// What `getaddrinfo` would take for an IPv4 address rather than a name:
    /// digits and dots only, or dot-separated numbers in decimal, octal or
    /// `0x` hex (`0x7f.1`, `0xdeadbeef`).
    static func isNumericIPv4Attempt(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        if bytes.contains(where: isDigit), bytes.allSatisfy({ isDigit($0) || $0 == UInt8(ascii: ".") }) { return true }
        var parts = text.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count > 1, parts.last?.isEmpty == true { parts.removeLast() }
        return !parts.isEmpty && parts.allSatisfy(isNumber)
    }

    /// A decimal, octal or `0x` hex number as `inet_aton` reads one part.
    private static func isNumber(_ part: Substring) -> Bool {
        let bytes = Array(part.utf8)
        if bytes.count >= 2, bytes[0] == UInt8(ascii: "0"), bytes[1] | 0x20 == UInt8(ascii: "x") {
            return bytes.dropFirst(2).allSatisfy(isHexDigit)
        }
        return !bytes.isEmpty && bytes.allSatisfy(isDigit)
    }

    private static func ipv4Refusal(_ text: String) -> String {
        let shown = HostSpecification.shown(text)
        guard let legacy = legacyReading(text) else {
            return "'\(shown)' is not an IPv4 address: write four decimal numbers from 0 to 255, like 192.0.2.1"
        }
        return "'\(shown)' is an ambiguous legacy IPv4 form (fewer than four parts, octal or hex) that programs read "
            + "differently; write the dotted quad you mean, such as \(legacy) as the C library reads it"
    }

    private static func ipv6Refusal(_ text: String) -> String {
        let shown = HostSpecification.shown(text)
        if text.hasPrefix("[") { return "'\(shown)' is not an IPv6 address: write it without brackets, like ::1" }
        guard let percent = text.firstIndex(of: "%") else {
            return "'\(shown)' is not an IPv6 address"
        }
        let address = String(text[..<percent]), zone = String(text[text.index(after: percent)...])
        if let parsed = IPAddress(strict: address) {
            if parsed.family == .v4 {
                return "'\(shown)' carries a zone, but it is the IPv4 address \(parsed), which takes none; write \(parsed)"
            }
            if zone.isEmpty { return "'\(shown)' has a '%' but no zone after it; write a zone like fe80::1%eth0" }
            return "'\(HostSpecification.shown(zone))' is not an interface name or index, so '\(shown)' has no valid zone"
        }
        return "'\(shown)' is not an IPv6 address with a zone, like fe80::1%eth0"
    }

    /// The dotted quad `inet_aton` makes of a legacy form, nil if it takes none.
    private static func legacyReading(_ text: String) -> IPAddress? {
        var address = in_addr()
        guard inet_aton(text, &address) != 0 else { return nil }
        return withUnsafeBytes(of: address.s_addr) { IPAddress(family: .v4, bytes: Array($0)) }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f"))
    }
}
