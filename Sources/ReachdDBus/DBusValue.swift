/// One D-Bus value of any type, nested to any legal depth.
///
/// Containers carry their element signatures so that an empty array still
/// knows what it is an array of.
///
/// ```swift
/// let properties: DBusValue = .dictionary(key: "s", value: "v", [
///     DictionaryEntry(.string("Status"), .variant(.int32(2))),
/// ])
/// ```
public enum DBusValue: Sendable, Hashable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(ObjectPath)
    case signature(Signature)
    case unixFD(UnixFileDescriptor)
    /// Elements all of type `element`.
    case array(element: Signature, [DBusValue])
    /// `a{kv}`: keys of the basic type `key`, values of type `value`.
    case dictionary(key: Signature, value: Signature, [DictionaryEntry])
    case structure([DBusValue])
    indirect case variant(DBusValue)

    /// The complete type of this value.
    public var signature: Signature {
        Signature(validated: signatureText)
    }

    /// A basic type: one signature character, no nesting.
    var isBasic: Bool { basicTypeCode != nil }

    /// The one signature byte of a basic value; nil for containers and variants.
    var basicTypeCode: UInt8? {
        switch self {
        case .byte: UInt8(ascii: "y")
        case .boolean: UInt8(ascii: "b")
        case .int16: UInt8(ascii: "n")
        case .uint16: UInt8(ascii: "q")
        case .int32: UInt8(ascii: "i")
        case .uint32: UInt8(ascii: "u")
        case .int64: UInt8(ascii: "x")
        case .uint64: UInt8(ascii: "t")
        case .double: UInt8(ascii: "d")
        case .string: UInt8(ascii: "s")
        case .objectPath: UInt8(ascii: "o")
        case .signature: UInt8(ascii: "g")
        case .unixFD: UInt8(ascii: "h")
        case .array, .dictionary, .structure, .variant: nil
        }
    }

    /// Whether this value's complete type is `signature`, without making its text for the
    /// values a message most often holds (basic values and variants): the writer asks this of
    /// every element of every array and dictionary it checks.
    func hasSignature(_ signature: Signature) -> Bool {
        let expected = signature.rawValue.utf8
        if let code = basicTypeCode { return expected.count == 1 && expected.first == code }
        if case .variant = self { return expected.count == 1 && expected.first == UInt8(ascii: "v") }
        return signatureText == signature.rawValue
    }

    /// The length of this value's signature when it is at most two containers deep with
    /// one-byte element types (`i`, `v`, `as`, `a{sv}`), else nil: such a value needs no
    /// parse to be within the signature limits of 255 bytes and 32 nested containers.
    var shallowSignatureLength: Int? {
        switch self {
        case .array(let element, _):
            element.rawValue.utf8.count == 1 ? 2 : nil
        case .dictionary(let key, let value, _):
            key.rawValue.utf8.count == 1 && value.rawValue.utf8.count == 1 ? 5 : nil
        case .structure:
            nil
        default:
            1  // basic values and variants: one byte
        }
    }

    var signatureText: String {
        switch self {
        case .array(let element, _): "a" + element.rawValue
        case .dictionary(let key, let value, _): "a{" + key.rawValue + value.rawValue + "}"
        case .structure(let fields): "(" + fields.map(\.signatureText).joined() + ")"
        case .variant: "v"
        default: String(UnicodeScalar(basicTypeCode!))  // every other case is a basic type
        }
    }
}

/// One key and value of a D-Bus dictionary (`{kv}`).
public struct DictionaryEntry: Sendable, Hashable {
    public var key: DBusValue
    public var value: DBusValue

    public init(_ key: DBusValue, _ value: DBusValue) {
        self.key = key
        self.value = value
    }
}

extension DBusValue {
    /// The string inside `.string`, or nil for any other case.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The value inside a variant, or the value itself.
    public var unwrappingVariant: DBusValue {
        if case .variant(let inner) = self { return inner.unwrappingVariant }
        return self
    }
}
