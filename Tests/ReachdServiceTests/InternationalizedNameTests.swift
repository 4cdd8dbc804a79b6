import ReachdDBus
import Testing
@testable import ReachdEngine

/// A name typed in any script reaches the resolver in the one ASCII form DNS
/// knows it by (UTS #46 with NFC, by libidn2): the same name typed two ways
/// is the same host, and a label that cannot be a host name is refused with
/// libidn2's reason. Length limits apply to the ASCII form.
@Suite("Internationalized names: Unicode → the ASCII form DNS uses")
struct InternationalizedNameTests {
    static func ascii(_ name: String) throws(DBusError) -> String {
        try HostSpecification(domain: name).text
    }

    @Test func anAccentTypedAsOneCharacterOrAsACombiningMarkIsTheSameName() throws {
        let precomposed = "caf\u{E9}.example"      // é as U+00E9
        let decomposed = "cafe\u{301}.example"     // e, then U+0301 COMBINING ACUTE ACCENT
        #expect(precomposed.unicodeScalars.count != decomposed.unicodeScalars.count)
        #expect(try Self.ascii(precomposed) == "xn--caf-dma.example")
        #expect(try Self.ascii(decomposed) == "xn--caf-dma.example")
    }

    @Test func uppercaseLettersOfAnyScriptAreTheLowercaseName() throws {
        #expect(try Self.ascii("BÜCHER.example") == "xn--bcher-kva.example")
        #expect(try Self.ascii("CAFÉ.EXAMPLE") == "xn--caf-dma.example")
        #expect(try Self.ascii("ΠΑΡΆΔΕΙΓΜΑ.example") == Self.ascii("παράδειγμα.example"))
    }

    @Test func theASCIIFormIsAcceptedAsIsInAnyCase() throws {
        #expect(try Self.ascii("xn--bcher-kva.example") == "xn--bcher-kva.example")
        #expect(try Self.ascii("XN--BCHER-KVA.Example") == "xn--bcher-kva.example")
    }

    @Test func namesInOtherScriptsAndWithOtherDotsAreConverted() throws {
        #expect(try Self.ascii("例え.テスト") == "xn--r8jz45g.xn--zckzah")
        #expect(try Self.ascii("例え。テスト") == "xn--r8jz45g.xn--zckzah", "an ideographic full stop separates labels")
        #expect(try Self.ascii("ｅｘａｍｐｌｅ.org") == "example.org", "full-width letters are the ASCII ones")
        #expect(try Self.ascii("münchen.example") == "xn--mnchen-3ya.example")
    }

    @Test func sharpSIsKeptAsItIsNotFoldedToSS() throws {
        // Non-transitional processing: straße.de and strasse.de are different names.
        #expect(try Self.ascii("straße.de") == "xn--strae-oqa.de")
    }

    @Test("symbols, emoji and invisible joiners cannot be in a host name", arguments: [
        "snow☃.example", "😀.example", "a\u{200D}b.example", "\u{301}a.example",
    ])
    func labelsIDNAForbidsAreRefusedWithLibidn2sReason(name: String) {
        #expect {
            try Self.ascii(name)
        } throws: { error in
            guard let error = error as? DBusError else { return false }
            return error.name.rawValue == "io.reachd.Reachability1.Error.InvalidHost"
                && error.message.contains("is not a valid internationalized label: ")
        }
    }

    @Test func anASCIIFormThatDoesNotDecodeIsRefused() {
        #expect(throws: DBusError.self) { try Self.ascii("xn--zz.example") }
        #expect(throws: DBusError.self) { try Self.ascii("xn--a.example") }
    }

    @Test func theLabelLimitAppliesToTheASCIIForm() throws {
        // 40 × ü: 80 octets in UTF-8, 46 in ASCII form: accepted.
        #expect(try Self.ascii(String(repeating: "ü", count: 40) + ".example")
                == "xn--td" + String(repeating: "a", count: 40) + ".example")
        // 19 different ideographs: 57 octets in UTF-8, 64 in ASCII form: refused.
        let ideographs = String(String.UnicodeScalarView((0..<19).compactMap { Unicode.Scalar(0x4E00 + ($0 * 1999) % 20000) }))
        #expect(ideographs.utf8.count == 57)
        #expect {
            try Self.ascii(ideographs + ".example")
        } throws: { error in
            (error as? DBusError)?.message.contains("63") == true
        }
    }

    @Test func libidn2IsAskedWithNFCAndNonTransitionalProcessing() throws {
        #expect(try IDNA.ascii("cafe\u{301}") == "xn--caf-dma")
        #expect(try IDNA.ascii("faß") == "xn--fa-hia")
        #expect(throws: IDNA.Refusal.self) { try IDNA.ascii("☃") }
    }
}
