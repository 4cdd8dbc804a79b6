import CReachdIDN2

/// Internationalized labels to their ASCII form, by libidn2: UTS #46
/// non-transitional processing with NFC normalization of the input, then the
/// IDNA 2008 rules. So `café` gives `xn--caf-dma` whether the é is typed as
/// one character (U+00E9) or as `e` and a combining acute (U+0301), `BÜCHER`
/// gives `xn--bcher-kva`, `ß` stays `ß` (non-transitional, as browsers do),
/// and an emoji or a `xn--` label that does not decode is refused.
///
/// ```swift
/// try IDNA.ascii("cafe\u{301}")   // "xn--caf-dma"
/// try IDNA.ascii("snow☃")         // throws: "string contains a disallowed character"
/// ```
///
/// STD3 rules are left off on purpose: libidn2 2.3 *drops* characters they
/// disallow (`a_b` becomes `ab`), where reachd wants to refuse them; the
/// result is checked for host characters by `DomainName` instead.
enum IDNA {
    /// Why libidn2 refused a label: its error code and its sentence.
    struct Refusal: Error, Sendable, Equatable {
        let code: Int32
        var reason: String { String(cString: idn2_strerror(code)) }
        /// The ASCII form would pass a DNS length limit (libidn2 stops at 63 octets a label).
        var isTooLong: Bool {
            [IDN2_PUNYCODE_BIG_OUTPUT.rawValue, IDN2_TOO_BIG_LABEL.rawValue, IDN2_TOO_BIG_DOMAIN.rawValue].contains(code)
        }
    }

    private static let flags = Int32(IDN2_NFC_INPUT.rawValue | IDN2_NONTRANSITIONAL.rawValue)

    /// The ASCII form of `text` (a label, or labels joined by dots).
    static func ascii(_ text: String) throws(Refusal) -> String {
        var output: UnsafeMutablePointer<CChar>?
        let code = idn2_to_ascii_8z(text, &output, flags)
        // libidn2 allocates the result; it must go back through idn2_free.
        defer { idn2_free(output) }
        guard code == IDN2_OK.rawValue, let output else { throw Refusal(code: code) }
        return String(cString: output)
    }
}
