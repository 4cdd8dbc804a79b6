import ReachdDBus
import Testing
@testable import ReachdEngine

/// reachd's one grammar for a host, the same for `ManagerForDomain`,
/// `ManagerForAddress` and `CheckHost`: the strict address forms inet_pton
/// takes, an IPv4-mapped IPv6 address judged as its IPv4 address, a zone
/// that must name an interface the machine has, and DNS names. A form that
/// other programs read differently is refused with a sentence naming the
/// strict form, never passed on to the resolver to guess.
///
/// The machine here has two interfaces, lo (index 1) and eth0 (index 2).
@Suite("Host grammar: what ManagerForDomain, ManagerForAddress and CheckHost accept")
struct HostGrammarTests {
    static func interfaceIndex(_ zone: String) -> UInt32? {
        ["lo": 1, "eth0": 2, "1": 1, "2": 2][zone]
    }

    enum Expected: Sendable, CustomStringConvertible {
        /// An address literal, shown as the Host property shows it.
        case address(String, IPAddress.Family)
        /// A DNS name, in the ASCII form the resolver is asked for.
        case name(String)
        /// Refused by every method with InvalidHost and a sentence containing this.
        case refused(String)
        /// A name that is not a valid one: ManagerForDomain and CheckHost say
        /// this, ManagerForAddress that it is not an address.
        case badName(String)

        var description: String {
            switch self {
            case .address(let text, let family): "address \(text) (\(family))"
            case .name(let name): "name \(name)"
            case .refused(let words): "refused: …\(words)…"
            case .badName(let words): "bad name: …\(words)…"
            }
        }
    }

    static let grammar: [(String, Expected)] = [
        // Strict literals, shown in canonical form.
        ("127.0.0.1", .address("127.0.0.1", .v4)),
        ("192.0.2.1", .address("192.0.2.1", .v4)),
        ("::1", .address("::1", .v6)),
        ("2001:DB8:0:0::1", .address("2001:db8::1", .v6)),
        // IPv4-mapped: judged as the IPv4 address it stands for.
        ("::ffff:127.0.0.1", .address("127.0.0.1", .v4)),
        ("::FFFF:7f00:1", .address("127.0.0.1", .v4)),
        ("::ffff:192.0.2.1%eth0", .refused("it is the IPv4 address 192.0.2.1, which takes none")),
        // Zones: an interface the machine has, by name or index.
        ("fe80::1%eth0", .address("fe80::1%eth0", .v6)),
        ("fe80::1%2", .address("fe80::1%2", .v6)),
        ("fe80::1%nonexistent0", .refused("no interface named 'nonexistent0'")),
        ("fe80::1%99", .refused("no interface has index 99")),
        ("fe80::1%0", .refused("no interface has index 0")),
        ("fe80::1%", .refused("no zone after it")),
        ("fe80::1%%lo", .refused("is not an interface name or index")),
        ("fe80::1%a/b", .refused("is not an interface name or index")),
        ("fe80::1%sixteen-bytes-xx", .refused("is not an interface name or index")),
        ("192.0.2.1%lo", .refused("it is the IPv4 address 192.0.2.1, which takes none")),
        // Legacy IPv4 forms: ambiguous, so refused with the strict form to write.
        ("1.2.3", .refused("ambiguous legacy IPv4 form")),
        ("1.2.3 ", .badName("a character other than")),
        ("127.1", .refused("write the dotted quad you mean, such as 127.0.0.1")),
        ("0177.0.0.1", .refused("such as 127.0.0.1")),
        ("0x7f.0.0.1", .refused("such as 127.0.0.1")),
        ("0X7F.0.0.1", .refused("such as 127.0.0.1")),
        ("0x7f000001", .refused("such as 127.0.0.1")),
        ("2130706433", .refused("such as 127.0.0.1")),
        ("010.0.0.1", .refused("such as 8.0.0.1")),
        ("127.000.000.001", .refused("such as 127.0.0.1")),
        ("12", .refused("such as 0.0.0.12")),
        // Numeric, but no address at all: still never a name.
        ("999.1.1.1", .refused("is not an IPv4 address")),
        ("1.2.3.4.5", .refused("is not an IPv4 address")),
        ("1..2", .refused("is not an IPv4 address")),
        ("1.2.3.4.", .refused("is not an IPv4 address")),
        ("0x1.0xg", .name("0x1.0xg")),
        // IPv6 that is not.
        ("::g", .refused("is not an IPv6 address")),
        ("1:2:3:4:5:6:7:8:9", .refused("is not an IPv6 address")),
        ("[::1]", .refused("without brackets")),
        // An address spelled in full-width characters is no name either.
        ("１２７.０.０.１", .badName("spells the address '127.0.0.1'")),
        ("127。0。0。1", .badName("spells the address '127.0.0.1'")),
        // DNS names: lowercased, one trailing dot dropped.
        ("example.org", .name("example.org")),
        ("Example.ORG.", .name("example.org")),
        ("localhost", .name("localhost")),
        ("_dmarc.example.org", .name("_dmarc.example.org")),
        ("r3---sn-4g5e6nzl.googlevideo.com", .name("r3---sn-4g5e6nzl.googlevideo.com")),
        ("123.example", .name("123.example")),
        ("1e100.net", .name("1e100.net")),
        ("0xdead.example", .name("0xdead.example")),
        ("DEADBEEF.Example", .name("deadbeef.example")),
        ("Cafe.Example.", .name("cafe.example")),
        ("xn--bcher-kva.example", .name("xn--bcher-kva.example")),
        ("XN--BCHER-KVA.Example.", .name("xn--bcher-kva.example")),
        (String(repeating: "a", count: 63) + ".example", .name(String(repeating: "a", count: 63) + ".example")),
        ([String](repeating: String(repeating: "a", count: 63), count: 3).joined(separator: ".") + "." + String(repeating: "b", count: 61),
         .name([String](repeating: String(repeating: "a", count: 63), count: 3).joined(separator: ".") + "." + String(repeating: "b", count: 61))),
        // Names that are not.
        ("a..b", .badName("has an empty label")),
        (".", .badName("has no labels")),
        ("..", .badName("has an empty label")),
        ("-a.b", .badName("starts or ends with a hyphen")),
        ("a-.b", .badName("starts or ends with a hyphen")),
        ("a.b-.", .badName("starts or ends with a hyphen")),
        ("a.", .name("a")),
        ("a..", .badName("has an empty label")),
        ("a_b!", .badName("a character other than letters, digits, '-' or '_'")),
        ("a b", .badName("a character other than letters, digits, '-' or '_'")),
        ("a.b/c", .badName("a character other than letters, digits, '-' or '_'")),
        (String(repeating: "a", count: 64) + ".example", .badName("is 64 octets long; a label has at most 63")),
        ([String](repeating: String(repeating: "a", count: 63), count: 4).joined(separator: "."),
         .badName("is 255 octets long; a DNS name has at most 253")),
        // Whatever it is, it must be a string a host could be.
        ("", .refused("the host is empty")),
        ("a\0b", .refused("NUL")),
        (String(repeating: "a", count: 1025), .refused("1025 bytes long")),
    ]

    @Test("each form is read the same way by every method", arguments: grammar)
    func hostGrammar(input: String, expected: Expected) {
        let domain = Result { () throws(DBusError) in try HostSpecification(domain: input, interfaceIndex: Self.interfaceIndex) }
        let address = Result { () throws(DBusError) in try HostSpecification(address: input, interfaceIndex: Self.interfaceIndex) }
        switch expected {
        case .address(let text, let family):
            for result in [domain, address] {
                guard case .success(.address(let parsed)) = result else {
                    Issue.record("'\(input)' should be the address \(text), got \(result)")
                    continue
                }
                #expect(parsed.family == family)
                #expect(parsed.description == text)
                #expect(HostSpecification.address(parsed).text == text, "what the Host property shows")
            }
        case .name(let ascii):
            #expect(domain == .success(.name(ascii)))
            // ManagerForAddress takes no names.
            #expect(Self.refusal(address)?.contains("is not an IPv4 or IPv6 address") == true, "\(address)")
        case .refused(let words):
            for (method, result) in [("ManagerForDomain and CheckHost", domain), ("ManagerForAddress", address)] {
                guard let message = Self.refusal(result) else {
                    Issue.record("\(method) should refuse '\(input)', got \(result)")
                    continue
                }
                #expect(message.contains(words), "\(method) on '\(input)': \(message)")
                #expect(message.utf8.count <= 300, "a short sentence: \(message)")
            }
        case .badName(let words):
            let message = Self.refusal(domain)
            #expect(message?.contains(words) == true, "'\(input)': \(domain)")
            #expect(message.map { $0.utf8.count <= 300 } != false, "a short sentence: \(message ?? "")")
            #expect(Self.refusal(address)?.contains("is not an IPv4 or IPv6 address") == true, "\(address)")
        }
    }

    @Test func aZoneIsCheckedAgainstTheMachinesInterfacesNotJustItsSpelling() {
        // The default asks the kernel: lo always exists, and no interface is named so.
        #expect(throws: Never.self) { try HostSpecification(address: "fe80::1%lo") }
        #expect(throws: DBusError.self) { try HostSpecification(address: "fe80::1%nonexistent0") }
        #expect(IPAddress.systemInterfaceIndex("lo") == 1, "the loopback interface is index 1")
        #expect(IPAddress.systemInterfaceIndex("1") == 1)
        #expect(IPAddress.systemInterfaceIndex("4294967295") == nil)
    }

    @Test func aMappedAddressIsTheSameHostAsItsIPv4Address() throws {
        #expect(try HostSpecification(domain: "::ffff:127.0.0.1") == HostSpecification(domain: "127.0.0.1"))
        #expect(try HostSpecification(address: "::ffff:192.0.2.1") == HostSpecification(address: "192.0.2.1"))
    }

    /// The InvalidHost sentence of a refusal, nil if it was not one.
    static func refusal(_ result: Result<HostSpecification, DBusError>) -> String? {
        guard case .failure(let error) = result, error.name.rawValue == "io.reachd.Reachability1.Error.InvalidHost" else {
            return nil
        }
        return error.message
    }
}
