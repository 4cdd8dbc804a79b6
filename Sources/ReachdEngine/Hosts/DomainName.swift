import ReachdDBus
import ReachdContract

/// reachd's DNS name grammar: a name of at most 253 octets in its ASCII
/// form, labels of at most 63 octets made of letters, digits, `-` and `_`,
/// not starting or ending with `-`. One trailing dot is allowed and dropped;
/// letters are lowercased.
///
/// A label with any non-ASCII character, or one spelled `xn--…`, is an
/// internationalized label and goes through `IDNA` (libidn2, UTS #46 with
/// NFC), which maps, normalizes and checks it; the limits above apply to its
/// ASCII form. Plain ASCII labels skip IDNA's rules on purpose: names such as
/// `r3---sn-abc.googlevideo.com` are in daily use and IDNA 2008 would refuse
/// their `--` in the third and fourth places.
///
/// ```swift
/// try DomainName.ascii("Bücher.Example.")   // "xn--bcher-kva.example"
/// ```
enum DomainName {
    static func ascii(_ text: String) throws(DBusError) -> String {
        var scalars = Substring(text).unicodeScalars
        if let last = scalars.last, isLabelSeparator(last) { scalars = scalars.dropLast() }
        guard !scalars.isEmpty else { throw ReachdContract.invalidHost("'\(shown(text))' has no labels") }
        var labels: [String] = []
        for label in scalars.split(omittingEmptySubsequences: false, whereSeparator: isLabelSeparator) {
            labels.append(try asciiLabel(String(String.UnicodeScalarView(label)), in: text))
        }
        let ascii = labels.joined(separator: ".")
        guard ascii.utf8.count <= 253 else {
            throw ReachdContract.invalidHost("'\(shown(text))' is \(ascii.utf8.count) octets long; a DNS name has at most 253")
        }
        // Full-width digits and dots map to ASCII ones: such a "name" spells an address.
        guard case .name = AddressLiteral.read(ascii) else {
            throw ReachdContract.invalidHost("'\(shown(text))' spells the address '\(ascii)' in other characters; write addresses in ASCII")
        }
        return ascii
    }

    /// The dots UTS #46 maps to U+002E: full stop, ideographic, full-width and half-width ideographic.
    static func isLabelSeparator(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x2E, 0x3002, 0xFF0E, 0xFF61: true
        default: false
        }
    }

    private static func asciiLabel(_ label: String, in text: String) throws(DBusError) -> String {
        guard !label.isEmpty else { throw ReachdContract.invalidHost("'\(shown(text))' has an empty label") }
        var ascii = label.lowercased()
        if !label.unicodeScalars.allSatisfy(\.isASCII) || ascii.hasPrefix("xn--") {
            do {
                ascii = try IDNA.ascii(label)
            } catch where error.isTooLong {
                throw ReachdContract.invalidHost("label '\(shown(label))' is longer than 63 octets in its ASCII form; a label has at most 63")
            } catch {
                throw ReachdContract.invalidHost("label '\(shown(label))' is not a valid internationalized label: \(error.reason)")
            }
        }
        guard !ascii.hasPrefix("-"), !ascii.hasSuffix("-") else {
            throw ReachdContract.invalidHost("label '\(shown(label))' starts or ends with a hyphen")
        }
        guard ascii.utf8.allSatisfy(isHostCharacter) else {
            throw ReachdContract.invalidHost("label '\(shown(label))' has a character other than letters, digits, '-' or '_'")
        }
        guard ascii.utf8.count <= 63 else {
            throw ReachdContract.invalidHost("label '\(shown(label))' is \(ascii.utf8.count) octets long; a label has at most 63")
        }
        return ascii
    }

    private static func isHostCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }

    private static func shown(_ text: String) -> String { HostSpecification.shown(text) }
}
