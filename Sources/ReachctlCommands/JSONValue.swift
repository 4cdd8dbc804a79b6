/// A JSON value as reachctl prints it: objects with their keys sorted, slashes not escaped,
/// byte for byte what JSONEncoder with `.sortedKeys` and `.withoutEscapingSlashes` printed
/// before reachctl stopped linking Foundation (and so ICU).
///
/// ```swift
/// JSONValue.object(["b": .bool(true), "a": .number(2)]).text   // {"a":2,"b":true}
/// ```
enum JSONValue: Equatable {
    case string(String)
    case number(Int)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])

    var text: String {
        switch self {
        case .string(let value): Self.quoted(value)
        case .number(let value): String(value)
        case .bool(let value): value ? "true" : "false"
        case .array(let items): "[" + items.map(\.text).joined(separator: ",") + "]"
        case .object(let fields):
            // JSONEncoder's .sortedKeys compares keys as strings do.
            "{" + fields.sorted { $0.key < $1.key }.map { Self.quoted($0.key) + ":" + $0.value.text }
                .joined(separator: ",") + "}"
        }
    }

    /// A JSON string literal, escaped as JSONEncoder escapes (slashes left alone).
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\u{08}": result += "\\b"
            case "\u{0C}": result += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

/// A report reachctl can print as JSON.
protocol JSONRepresentable {
    var jsonValue: JSONValue { get }
}
