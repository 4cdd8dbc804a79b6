import ReachdDBus
import Testing

/// Signatures are validated when made and split into complete types.
@Suite("Signatures")
struct SignatureTests {
    @Test("completeTypes splits a body signature into its complete types", arguments: [
        ("", []),
        ("i", ["i"]),
        ("ss", ["s", "s"]),
        ("a{sv}is", ["a{sv}", "i", "s"]),
        ("aai(ua{s(ii)})v", ["aai", "(ua{s(ii)})", "v"]),
        ("a(a{oa{sv}})ag", ["a(a{oa{sv}})", "ag"]),
    ] as [(String, [String])])
    func completeTypesSplitsBody(_ text: String, _ expected: [String]) throws {
        let signature = try Signature(text)
        #expect(signature.completeTypes.map(\.rawValue) == expected)
        #expect(signature.isSingleCompleteType == (expected.count == 1))
        #expect(Signature.joining(signature.completeTypes) == signature)
    }

    @Test("text that is not a signature is refused with InvalidSignature", arguments: [
        "a", "(", "()", "a{vs}", "{sv}", "z", "(i", "a{s}", "i\u{0}i",
        String(repeating: "i", count: 256),
    ])
    func invalidSignaturesAreRefused(_ text: String) {
        #expect(Signature(rawValue: text) == nil)
        #expect(throws: DBusError.invalidSignature("'\(text)' is not a valid D-Bus signature")) { try Signature(text) }
    }
}
