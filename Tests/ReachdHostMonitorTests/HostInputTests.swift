import ReachdDBus
import ReachdTestSupport
import Testing

/// What a host may be (design section 2, issue 5; the grammar in
/// docs/app-developers/dbus-contract.md, "What a host may be"): a DNS name of at most 253 octets with labels of at
/// most 63, internationalized names in either form, or an IPv4/IPv6 literal in
/// the strict forms inet_pton takes (IPv6 with an optional zone that names an
/// interface), the same for every method. Anything else answers `InvalidHost`
/// with a message saying what was wrong, and nothing is kept.
///
/// reachd runs in a client namespace whose only DNS server is the test's
/// dnsmasq, so the names it does accept are never looked up anywhere else.
@Suite("Host input", .serialized)
struct HostInputTests {
    static let invalidHost = "io.reachd.Reachability1.Error.InvalidHost"

    /// The three methods that take a host.
    enum Entry: String, CaseIterable, CustomStringConvertible {
        case managerForDomain = "ManagerForDomain"
        case managerForAddress = "ManagerForAddress"
        case checkHost = "CheckHost"

        var description: String { rawValue }

        func call(_ client: ReachdClient, _ host: String) async throws -> String {
            switch self {
            case .managerForDomain: try await client.managerForDomain(host).rawValue
            case .managerForAddress: try await client.managerForAddress(host).rawValue
            case .checkHost: "\(try await client.checkHost(host))"
            }
        }
    }

    static func label(_ length: Int) -> String { String(repeating: "a", count: length) }

    /// A label of 19 CJK ideographs: 57 octets in UTF-8, 64 in its ASCII form.
    static let ideographs = String(String.UnicodeScalarView((0..<19).compactMap { Unicode.Scalar(0x4E00 + ($0 * 1999) % 20000) }))

    @Test func emptyHostIsRefused() async throws {
        try await withReachdInNamespace { _, client in
            try await expectRefused([""], mentioning: "empty", client)
        }
    }

    @Test func overlongNamesAndLabelsAreRefused() async throws {
        try await withReachdInNamespace { _, client in
            let name254 = [Self.label(63), Self.label(63), Self.label(63), Self.label(62)].joined(separator: ".")
            #expect(name254.utf8.count == 254)
            try await expectRefused([name254], mentioning: "253", client)
            try await expectRefused([Self.label(64) + ".example", "www." + Self.label(64)], mentioning: "63", client)
            // The limit applies to the ASCII form: these 19 ideographs are 57 UTF-8 octets, 64 as xn--….
            try await expectRefused([Self.ideographs + ".example"], mentioning: "63", client)
        }
    }

    @Test func malformedLabelsAreRefused() async throws {
        try await withReachdInNamespace { _, client in
            try await expectRefused(["a..b", "-a.b", "a-.b", "a_b!", "a b", ".", "..", "a.b/c", "snow☃.example"], client)
        }
    }

    @Test func malformedAddressLiteralsAreRefused() async throws {
        try await withReachdInNamespace { namespaces, client in
            // A name is no address (so only ManagerForAddress refuses it).
            try await expectRefused([namespaces.dnsName], through: [.managerForAddress], client)
            // Numeric or IPv6-looking: an address attempt for every method, never
            // handed to the resolver as a name (which would read 1.2.3 as 1.2.0.3).
            try await expectRefused(["999.1.1.1", "1.2.3.4.5", "1.2.3.4.", "::g", "1.2.3.4%lo"], client)
            // A zone needs a name after the %; a bad literal is no name either.
            try await expectRefused(["fe80::1%", "fe80::1%%lo", "fe80::1%a/b", "[::1]"], client)
        }
    }

    @Test func legacyIPv4FormsAreRefusedByEveryMethodWithTheStrictFormToWrite() async throws {
        try await withReachdInNamespace { _, client in
            let legacy = ["1.2.3": "1.2.0.3", "127.1": "127.0.0.1", "0177.0.0.1": "127.0.0.1", "0x7f.0.0.1": "127.0.0.1"]
            for (input, strict) in legacy.sorted(by: { $0.key < $1.key }) {
                for entry in Entry.allCases {
                    let error = try await dbusError { try await entry.call(client, input) }
                    #expect(error.name.rawValue == Self.invalidHost, "\(entry) '\(input)' answered \(error)")
                    #expect(error.message.contains("ambiguous") && error.message.contains(strict),
                            "\(entry) '\(input)': '\(error.message)' says it is ambiguous and names \(strict)")
                }
            }
            try await expectRefused(Array(legacy.keys), client)
        }
    }

    @Test func aZoneMustNameAnInterfaceTheMachineHas() async throws {
        try await withReachdInNamespace { _, client in
            try await expectRefused(["fe80::1%nonexistent0"], mentioning: "no interface named 'nonexistent0'", client)
            try await expectRefused(["fe80::1%99999"], mentioning: "no interface has index 99999", client)
            let error = try await dbusError { try await client.managerForAddress("fe80::1%nonexistent0") }
            #expect(error.message.contains("no interface named 'nonexistent0'"), "\(error)")
            // lo exists in every namespace, by name and as index 1.
            for zoned in ["fe80::1%lo", "fe80::1%1"] {
                let monitor = try await client.managerForAddress(zoned)
                #expect(try await client.host(of: monitor) == zoned)
                try await client.release(monitor)
            }
        }
    }

    @Test func anIPv4MappedAddressIsJudgedAsItsIPv4Address() async throws {
        try await withReachdInNamespace { namespaces, client in
            #expect(try await client.checkHost("::ffff:127.0.0.1") == .local)
            #expect(try await client.checkHost("::ffff:\(namespaces.peerAddress)") == .reachableDirect)
            let monitor = try await client.managerForAddress("::ffff:127.0.0.1")
            #expect(try await client.host(of: monitor) == "127.0.0.1")
            #expect(try await client.answer(of: monitor) == .local)
            #expect(try await client.string("Interface", of: monitor, interface: ReachdClient.monitorInterface) == "lo")
        }
    }

    @Test func hostWithEmbeddedNULNeverReachesReachd() async throws {
        try await withReachdInNamespace { namespaces, client in
            let before = try await client.monitorCount()
            // D-Bus strings cannot hold NUL: the client library refuses to send
            // one (and the bus would drop a client that did), so reachd's own
            // check is a second line that no bus message can reach.
            for entry in Entry.allCases {
                let error = try await dbusError { try await entry.call(client, "\(namespaces.dnsName)\0.evil") }
                #expect(error.name.rawValue == "org.freedesktop.DBus.Error.InvalidArgs", "\(entry): \(error)")
            }
            #expect(try await client.monitorCount() == before)
            #expect(try await client.checkHost("127.0.0.1") == .local)
        }
    }

    @Test func hugeHostsAreRefusedWithAShortMessage() async throws {
        try await withReachdInNamespace { _, client in
            let kibibytes64 = 64 * 1024
            try await expectRefused([
                Self.label(kibibytes64),
                String(repeating: "a.", count: kibibytes64 / 2),
                String(repeating: "ü", count: kibibytes64 / 2),
                "fe80::1%" + Self.label(kibibytes64 - 8),
            ], client)
        }
    }

    @Test func longestLegalNamesAreAccepted() async throws {
        try await withReachdInNamespace { _, client in
            let name253 = [Self.label(63), Self.label(63), Self.label(63), Self.label(61)].joined(separator: ".")
            #expect(name253.utf8.count == 253)
            // 40 × "ü" is 80 octets in UTF-8 but 46 in the ASCII form the limit applies to.
            let accepted = [
                name253: name253,
                Self.label(63) + ".example": Self.label(63) + ".example",
                String(repeating: "ü", count: 40) + ".example": "xn--td" + Self.label(40) + ".example",
            ]
            for (name, ascii) in accepted {
                let monitor = try await client.managerForDomain(name)
                #expect(try await client.host(of: monitor) == ascii)
                #expect(try await client.checkHost(name) == .notReachable)  // dnsmasq knows no such name
            }
            #expect(try await client.monitorCount() == UInt32(accepted.count))
        }
    }

    @Test func internationalizedNamesAreAcceptedInTheirUnicodeAndASCIIForms() async throws {
        try await withReachdInNamespace { namespaces, client in
            // Pairs, not a dictionary: Swift compares strings by canonical
            // equivalence, so the two cafés would be one key.
            let expected: [(given: String, ascii: String)] = [
                ("bücher.example", "xn--bcher-kva.example"),
                ("xn--bcher-kva.example", "xn--bcher-kva.example"),
                ("BÜCHER.example", "xn--bcher-kva.example"),
                ("münchen.example", "xn--mnchen-3ya.example"),
                ("例え.テスト", "xn--r8jz45g.xn--zckzah"),
                ("caf\u{E9}.example", "xn--caf-dma.example"),     // é as one character
                ("cafe\u{301}.example", "xn--caf-dma.example"),   // e and a combining acute: the same name
            ]
            for (given, ascii) in expected {
                let monitor = try await client.managerForDomain(given)
                #expect(try await client.host(of: monitor) == ascii, "Host of the monitor for \(given)")
                #expect(try await client.checkHost(given) == .notReachable, "\(given)")
            }
            #expect(try await client.monitorCount() == UInt32(expected.count))
            // The resolver is asked for the ASCII form.
            #expect(namespaces.dnsQueries.contains("query[A] xn--bcher-kva.example"),
                    "dnsmasq's log:\n\(namespaces.dnsQueries)")
            #expect(namespaces.dnsQueries.contains("query[A] xn--r8jz45g.xn--zckzah"))
        }
    }

    /// Each input through each entry answers InvalidHost with a short message
    /// (a name's mentioning `keyword` if given), and no monitor is made or kept.
    private func expectRefused(
        _ inputs: [String], through entries: [Entry] = Entry.allCases, mentioning keyword: String? = nil,
        _ client: ReachdClient, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        // A monitor of its own, so "unchanged" is not merely "still zero".
        let baseline = try await client.managerForAddress("127.0.0.1")
        let count = try await client.monitorCount()
        let exported = try await client.exportedMonitors()
        for input in inputs {
            let shown = input.count > 40 ? "\(input.prefix(20))… (\(input.utf8.count) octets)" : "'\(input)'"
            for entry in entries {
                let error = try await dbusError { try await entry.call(client, input) }
                #expect(error.name.rawValue == Self.invalidHost, "\(entry) \(shown) answered \(error)",
                        sourceLocation: sourceLocation)
                #expect(!error.message.isEmpty && error.message.utf8.count <= 300,
                        "\(entry) \(shown): a short message saying what is wrong, got \(error.message.utf8.count) octets",
                        sourceLocation: sourceLocation)
                // ManagerForAddress rightly says "not an address" to any name, however long.
                if let keyword, entry != .managerForAddress {
                    #expect(error.message.contains(keyword), "\(entry) \(shown): '\(error.message)' mentions \(keyword)",
                            sourceLocation: sourceLocation)
                }
            }
        }
        #expect(try await client.monitorCount() == count, "nothing kept", sourceLocation: sourceLocation)
        #expect(try await client.exportedMonitors() == exported, "nothing exported", sourceLocation: sourceLocation)
        try await client.release(baseline)
    }
}
