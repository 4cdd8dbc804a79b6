import DBus

/// A host a client asked about: an address literal, or a DNS name in its
/// ASCII (A-label) form (`DomainName` is the name grammar). Validation
/// happens here, once, with a message that says what was wrong.
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
        self = .name(try DomainName.ascii(text))
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

    /// Error messages quote the input, shortened so a 64 KiB string stays readable.
    static func shown(_ text: String) -> String {
        text.count <= 80 ? text : String(text.prefix(77)) + "..."
    }
}
