/// The top-level members of one JSON object whose values are scalars: enough to read the few
/// keys reachd needs from systemd-networkd's `DescribeLink` without Foundation (the service
/// stays free of it, and of ICU, for its memory). Nested objects and arrays are checked and
/// skipped, never kept.
///
/// ```swift
/// let link = JSONObjectReader(#"{"Index":3,"Type":"wlan","Addresses":[{"Family":2}],"OnlineState":null}"#)
/// link?["Type"]          // .string("wlan")
/// link?["Index"]         // .number("3")
/// link?["Addresses"]     // .nested
/// ```
public struct JSONObjectReader: Sendable, Hashable {
    /// A member's value.
    public enum Value: Sendable, Hashable {
        case string(String)
        /// The number as written (`3`, `-1.5e3`).
        case number(String)
        case bool(Bool)
        case null
        /// An object or array, skipped.
        case nested
    }

    public private(set) var members: [String: Value]

    /// nil unless `text` is one well-formed JSON object (surrounding white space allowed).
    public init?(_ text: String) {
        var parser = Parser(bytes: Array(text.utf8))
        guard let members = parser.topLevelObject() else { return nil }
        self.members = members
    }

    public subscript(key: String) -> Value? { members[key] }

    /// The member as a string, nil when absent or of another type.
    public func string(_ key: String) -> String? {
        if case .string(let value)? = members[key] { return value }
        return nil
    }

    /// The member as a whole number, nil when absent, of another type, or not whole.
    public func integer(_ key: String) -> Int? {
        if case .number(let text)? = members[key] { return Int(text) }
        return nil
    }

    /// The member as a boolean, nil when absent or of another type.
    public func bool(_ key: String) -> Bool? {
        if case .bool(let value)? = members[key] { return value }
        return nil
    }

    private struct Parser {
        let bytes: [UInt8]
        var position = 0
        /// Nesting bound: a hostile peer cannot exhaust the stack.
        static let maximumDepth = 64

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func topLevelObject() -> [String: Value]? {
            skipSpace()
            guard let members = object(keeping: true, depth: 0) else { return nil }
            skipSpace()
            return position == bytes.count ? members : nil
        }

        private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

        private mutating func skipSpace() {
            while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
        }

        private mutating func expect(_ byte: UInt8) -> Bool {
            guard current == byte else { return false }
            position += 1
            return true
        }

        /// An object; its members only when `keeping` (a nested one is only checked).
        private mutating func object(keeping: Bool, depth: Int) -> [String: Value]? {
            guard depth < Self.maximumDepth, expect(UInt8(ascii: "{")) else { return nil }
            var members: [String: Value] = [:]
            skipSpace()
            if expect(UInt8(ascii: "}")) { return members }
            while true {
                skipSpace()
                guard let key = string() else { return nil }
                skipSpace()
                guard expect(UInt8(ascii: ":")) else { return nil }
                skipSpace()
                guard let value = value(depth: depth + 1) else { return nil }
                if keeping { members[key] = value }
                skipSpace()
                if expect(UInt8(ascii: ",")) { continue }
                guard expect(UInt8(ascii: "}")) else { return nil }
                return members
            }
        }

        private mutating func array(depth: Int) -> Bool {
            guard depth < Self.maximumDepth, expect(UInt8(ascii: "[")) else { return false }
            skipSpace()
            if expect(UInt8(ascii: "]")) { return true }
            while true {
                skipSpace()
                guard value(depth: depth + 1) != nil else { return false }
                skipSpace()
                if expect(UInt8(ascii: ",")) { continue }
                return expect(UInt8(ascii: "]"))
            }
        }

        private mutating func value(depth: Int) -> Value? {
            switch current {
            case UInt8(ascii: "\""): return string().map(Value.string)
            case UInt8(ascii: "{"): return object(keeping: false, depth: depth) == nil ? nil : .nested
            case UInt8(ascii: "["): return array(depth: depth) ? .nested : nil
            case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
            case UInt8(ascii: "n"): return literal("null") ? .null : nil
            default: return number().map(Value.number)
            }
        }

        private mutating func literal(_ word: String) -> Bool {
            let utf8 = Array(word.utf8)
            guard position + utf8.count <= bytes.count, Array(bytes[position..<position + utf8.count]) == utf8 else { return false }
            position += utf8.count
            return true
        }

        private mutating func number() -> String? {
            let start = position
            func digits() -> Int {
                let from = position
                while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { position += 1 }
                return position - from
            }
            _ = expect(UInt8(ascii: "-"))
            guard digits() > 0 else { return nil }
            if expect(UInt8(ascii: ".")), digits() == 0 { return nil }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                position += 1
                if !expect(UInt8(ascii: "+")) { _ = expect(UInt8(ascii: "-")) }
                guard digits() > 0 else { return nil }
            }
            return String(decoding: bytes[start..<position], as: UTF8.self)
        }

        private mutating func string() -> String? {
            guard expect(UInt8(ascii: "\"")) else { return nil }
            var scalars = String.UnicodeScalarView()
            var run = position
            func flush(_ end: Int) {
                scalars.append(contentsOf: String(decoding: bytes[run..<end], as: UTF8.self).unicodeScalars)
            }
            while let byte = current {
                switch byte {
                case UInt8(ascii: "\""):
                    flush(position)
                    position += 1
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    flush(position)
                    position += 1
                    guard let scalar = escape() else { return nil }
                    scalars.append(scalar)
                    run = position
                case 0..<0x20:
                    return nil
                default:
                    position += 1
                }
            }
            return nil
        }

        private mutating func escape() -> Unicode.Scalar? {
            guard let byte = current else { return nil }
            position += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(byte)
            case UInt8(ascii: "b"): return "\u{08}"
            case UInt8(ascii: "f"): return "\u{0C}"
            case UInt8(ascii: "n"): return "\n"
            case UInt8(ascii: "r"): return "\r"
            case UInt8(ascii: "t"): return "\t"
            case UInt8(ascii: "u"):
                guard let high = hex4() else { return nil }
                if (0xD800..<0xDC00).contains(high) {
                    guard expect(UInt8(ascii: "\\")), expect(UInt8(ascii: "u")), let low = hex4(),
                          (0xDC00..<0xE000).contains(low) else { return nil }
                    return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                }
                return Unicode.Scalar(high)
            default: return nil
            }
        }

        private mutating func hex4() -> UInt32? {
            guard position + 4 <= bytes.count,
                  let value = UInt32(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16) else { return nil }
            position += 4
            return value
        }
    }
}
