import CReachdDBus

/// A D-Bus type signature such as `a{sv}` or `(iu)`, validated when made.
///
/// A signature may hold several complete types (a message body's `ss`);
/// `completeTypes` splits it.
public struct Signature: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init?(rawValue: String) {
        guard libdbusAccepts(rawValue, dbus_signature_validate) else { return nil }
        self.rawValue = rawValue
    }

    public init(_ text: String) throws(DBusError) {
        guard let signature = Signature(rawValue: text) else {
            throw .invalidSignature("'\(text)' is not a valid D-Bus signature")
        }
        self = signature
    }

    init(validated text: String) { rawValue = text }

    public static let empty = Signature(validated: "")

    public var description: String { rawValue }

    /// The complete types in order: `a{sv}is` → `a{sv}`, `i`, `s`.
    public var completeTypes: [Signature] {
        var result: [Signature] = []
        let bytes = Array(rawValue.utf8)
        var start = 0
        while start < bytes.count {
            let end = Signature.endOfCompleteType(bytes, from: start)
            result.append(Signature(validated: String(decoding: bytes[start..<end], as: UTF8.self)))
            start = end
        }
        return result
    }

    /// True when this is exactly one complete type.
    public var isSingleCompleteType: Bool {
        !rawValue.isEmpty && rawValue.withCString { dbus_signature_validate_single($0, nil) != 0 }
    }

    /// Concatenation, as for a message body: `ss` from `s` and `s`.
    public static func joining(_ parts: [Signature]) -> Signature {
        Signature(validated: parts.map(\.rawValue).joined())
    }

    /// Index just past the complete type that starts at `start` in a valid signature.
    static func endOfCompleteType(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        // Any number of array prefixes, then one type.
        while bytes[index] == UInt8(ascii: "a") { index += 1 }
        switch bytes[index] {
        case UInt8(ascii: "("), UInt8(ascii: "{"):
            var depth = 0
            repeat {
                switch bytes[index] {
                case UInt8(ascii: "("), UInt8(ascii: "{"): depth += 1
                case UInt8(ascii: ")"), UInt8(ascii: "}"): depth -= 1
                default: break
                }
                index += 1
            } while depth > 0
            return index
        default:
            return index + 1
        }
    }
}

extension Signature: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) {
        guard let signature = Signature(rawValue: value) else { preconditionFailure("invalid signature literal '\(value)'") }
        self = signature
    }
}
