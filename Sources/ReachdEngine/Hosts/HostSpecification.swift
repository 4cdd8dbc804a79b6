import ReachdDBus
import ReachdContract

/// A host a client asked about: an address literal, or a DNS name in its
/// ASCII (A-label) form. Validation happens here, once, with a message that
/// says what was wrong: `AddressLiteral` is the address grammar, `DomainName`
/// the name grammar, and this is the one place that asks the machine
/// whether a zone's interface exists.
///
/// ```swift
/// try HostSpecification(domain: "bücher.example")     // .name("xn--bcher-kva.example")
/// try HostSpecification(address: "fe80::1%eth0")      // .address, if eth0 exists
/// try HostSpecification(domain: "::ffff:127.0.0.1")   // .address(127.0.0.1)
/// try HostSpecification(domain: "127.1")              // throws InvalidHost: a legacy IPv4 form
/// ```
package enum HostSpecification: Sendable, Hashable {
    case address(IPAddress)
    case name(String)

    /// Answers the interface index a zone names, nil when no interface does.
    package typealias InterfaceIndex = (_ zone: String) -> UInt32?

    /// As `managerForDomain:` and `CheckHost` take it: a DNS name, or an address literal.
    package init(domain text: String, interfaceIndex: InterfaceIndex = IPAddress.systemInterfaceIndex) throws(DBusError) {
        try Self.checkBasics(text)
        switch AddressLiteral.read(text) {
        case .address(let address): self = .address(try Self.withExistingZone(address, in: text, interfaceIndex))
        case .refused(let reason): throw ReachdContract.invalidHost(reason)
        case .name: self = .name(try DomainName.ascii(text))
        }
    }

    /// As `managerForAddress:` takes it: an IPv4 or IPv6 literal only.
    package init(address text: String, interfaceIndex: InterfaceIndex = IPAddress.systemInterfaceIndex) throws(DBusError) {
        try Self.checkBasics(text)
        switch AddressLiteral.read(text) {
        case .address(let address): self = .address(try Self.withExistingZone(address, in: text, interfaceIndex))
        case .refused(let reason): throw ReachdContract.invalidHost(reason)
        case .name:
            throw ReachdContract.invalidHost("'\(Self.shown(text))' is not an IPv4 or IPv6 address (IPv6 may carry a zone: fe80::1%eth0)")
        }
    }

    /// What the monitor's `Host` property shows.
    package var text: String {
        switch self {
        case .address(let address): address.description
        case .name(let name): name
        }
    }

    /// A zone must name an interface this machine has: the kernel would
    /// refuse the route lookup, and an ignored zone answers for another link.
    private static func withExistingZone(
        _ address: IPAddress, in text: String, _ interfaceIndex: InterfaceIndex
    ) throws(DBusError) -> IPAddress {
        guard !address.zone.isEmpty, interfaceIndex(address.zone) == nil else { return address }
        let missing = IPAddress.isNumericZone(address.zone)
            ? "no interface has index \(address.zone)" : "no interface named '\(address.zone)'"
        throw ReachdContract.invalidHost("\(missing) on this machine, so '\(shown(text))' has no valid zone")
    }

    private static func checkBasics(_ text: String) throws(DBusError) {
        if text.isEmpty { throw ReachdContract.invalidHost("the host is empty") }
        if text.utf8.contains(0) { throw ReachdContract.invalidHost("the host contains a NUL character") }
        // Generous for a zone or Unicode labels, and stops huge inputs early.
        if text.utf8.count > 1024 {
            throw ReachdContract.invalidHost("the host is \(text.utf8.count) bytes long; a DNS name has at most 253")
        }
    }

    /// Error messages quote the input, shortened so a 64 KiB string stays readable.
    static func shown(_ text: String) -> String {
        text.count <= 80 ? text : String(text.prefix(77)) + "..."
    }
}
