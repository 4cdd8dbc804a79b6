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
        if let plain = plainASCII(text) { return plain }
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

    /// The reading below for the common case, a valid name in plain ASCII with no `xn--` label,
    /// in one pass over its bytes and without copying it unless a letter is lowercased or the
    /// trailing dot dropped; nil for anything else, which the full reading answers (and, where
    /// it is wrong, says why). It runs for every `CheckHost`, a flood's included.
    private static func plainASCII(_ text: String) -> String? {
        let reading = text.utf8.withContiguousStorageIfAvailable { bytes -> (length: Int, lowercase: Bool, numeric: Bool)? in
            var length = bytes.count
            if length > 0, bytes[length - 1] == UInt8(ascii: ".") { length -= 1 }
            guard length > 0, length <= 253 else { return nil }
            var hasUppercase = false
            // Digits, dots and hex's letters only: it might spell an address (`0x7f.1`).
            var mightBeNumeric = true
            var labelStart = 0
            for index in 0...length {
                let byte = index < length ? bytes[index] : UInt8(ascii: ".")
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"):
                    continue
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    if !Self.isHexLetter(byte) { mightBeNumeric = false }
                    continue
                case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                    hasUppercase = true
                    if !Self.isHexLetter(byte | 0x20) { mightBeNumeric = false }
                    continue
                case UInt8(ascii: "."):
                    let labelLength = index - labelStart
                    guard labelLength > 0, labelLength <= 63, bytes[labelStart] != UInt8(ascii: "-"),
                          bytes[index - 1] != UInt8(ascii: "-") else { return nil }
                    if labelLength >= 4, bytes[labelStart] | 0x20 == UInt8(ascii: "x"), bytes[labelStart + 1] | 0x20 == UInt8(ascii: "n"),
                       bytes[labelStart + 2] == UInt8(ascii: "-"), bytes[labelStart + 3] == UInt8(ascii: "-") {
                        return nil
                    }
                    labelStart = index + 1
                default:
                    return nil
                }
            }
            return (length, hasUppercase, mightBeNumeric)
        }
        guard let reading = reading ?? nil else { return nil }
        let ascii = reading.lowercase || reading.length < text.utf8.count
            ? String(decoding: text.utf8.prefix(reading.length).map { $0 | ($0 >= 0x41 && $0 <= 0x5A ? 0x20 : 0) }, as: UTF8.self)
            : text
        if reading.numeric, AddressLiteral.read(ascii) != .name { return nil }
        return ascii
    }

    private static func isHexLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte) || byte == UInt8(ascii: "x")
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
