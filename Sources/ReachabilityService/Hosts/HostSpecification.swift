import DBus

/// A host a client asked about: an address literal, or a DNS name in its
/// ASCII (A-label) form. Validation happens here, once, with a message that
/// says what was wrong.
///
/// ```swift
/// try HostSpecification(domain: "bücher.example")   // .name("xn--bcher-kva.example")
/// try HostSpecification(address: "fe80::1%eth0")
/// ```
enum HostSpecification: Sendable, Hashable {
    case address(IPAddress)
    case name(String)

    /// As `managerForDomain:` takes it: a DNS name, or an address literal.
    init(domain text: String) throws(DBusError) {
        try Self.checkBasics(text)
        if let address = IPAddress(literal: text) {
            self = .address(address)
            return
        }
        self = .name(try Self.asciiName(text))
    }

    /// As `managerForAddress:` takes it: an IPv4 or IPv6 literal only.
    init(address text: String) throws(DBusError) {
        try Self.checkBasics(text)
        guard let address = IPAddress(literal: text) else {
            throw ReachabilityErrors.invalidHost("'\(Self.shown(text))' is not an IPv4 or IPv6 address (IPv6 may carry a zone: fe80::1%eth0)")
        }
        self = .address(address)
    }

    /// What the monitor's `Host` property shows.
    var text: String {
        switch self {
        case .address(let address): address.description
        case .name(let name): name
        }
    }

    private static func checkBasics(_ text: String) throws(DBusError) {
        if text.isEmpty { throw ReachabilityErrors.invalidHost("the host is empty") }
        if text.utf8.contains(0) { throw ReachabilityErrors.invalidHost("the host contains a NUL character") }
        // Generous for a zone or Unicode labels, and stops huge inputs early.
        if text.utf8.count > 1024 {
            throw ReachabilityErrors.invalidHost("the host is \(text.utf8.count) bytes long; a DNS name has at most 253")
        }
    }

    /// Validates a DNS name and returns its ASCII form.
    private static func asciiName(_ text: String) throws(DBusError) -> String {
        var name = Substring(text)
        if name.hasSuffix(".") { name = name.dropLast() }
        guard !name.isEmpty else { throw ReachabilityErrors.invalidHost("'\(text)' has no labels") }
        var labels: [String] = []
        for label in name.split(separator: ".", omittingEmptySubsequences: false) {
            labels.append(try asciiLabel(label, in: text))
        }
        let ascii = labels.joined(separator: ".")
        guard ascii.utf8.count <= 253 else {
            throw ReachabilityErrors.invalidHost("'\(shown(text))' is \(ascii.utf8.count) octets long; a DNS name has at most 253")
        }
        return ascii
    }

    private static func asciiLabel(_ label: Substring, in text: String) throws(DBusError) -> String {
        guard !label.isEmpty else { throw ReachabilityErrors.invalidHost("'\(shown(text))' has an empty label") }
        guard !label.hasPrefix("-"), !label.hasSuffix("-") else {
            throw ReachabilityErrors.invalidHost("label '\(shown(String(label)))' starts or ends with a hyphen")
        }
        var ascii: String
        if label.unicodeScalars.allSatisfy(\.isASCII) {
            guard label.utf8.allSatisfy(isHostCharacter) else {
                throw ReachabilityErrors.invalidHost("label '\(shown(String(label)))' has a character other than letters, digits, '-' or '_'")
            }
            ascii = label.lowercased()
        } else {
            guard label.unicodeScalars.allSatisfy(isUnicodeLabelScalar), let encoded = Punycode.encode(label.lowercased()) else {
                throw ReachabilityErrors.invalidHost("label '\(shown(String(label)))' has characters a host name cannot hold")
            }
            ascii = "xn--" + encoded
        }
        guard ascii.utf8.count <= 63 else {
            throw ReachabilityErrors.invalidHost("label '\(shown(String(label)))' is \(ascii.utf8.count) octets long; a label has at most 63")
        }
        return ascii
    }

    private static func isHostCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }

    /// Letters, marks and digits of any script (and ASCII host characters).
    private static func isUnicodeLabelScalar(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return isHostCharacter(UInt8(scalar.value)) }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber: return true
        default: return false
        }
    }

    /// Error messages quote the input, shortened so a 64 KiB string stays readable.
    private static func shown(_ text: String) -> String {
        text.count <= 80 ? text : String(text.prefix(77)) + "..."
    }
}
