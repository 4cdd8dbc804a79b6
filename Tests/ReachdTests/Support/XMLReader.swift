/// Where a document stops being well-formed XML, where expat and libxml2 stop too.
struct XMLSyntaxError: Error, Equatable, CustomStringConvertible {
    var line: Int
    var column: Int
    var reason: String
    var description: String { "not well-formed XML at line \(line), column \(column): \(reason)" }
}

/// One element boundary, in document order. A self-closing element gives a start and an end.
enum XMLEvent: Equatable {
    case start(String, attributes: [String: String])
    case end(String)
}

/// A strict, non-validating reader for the XML that introspection data uses (XML 1.0,
/// https://www.w3.org/TR/xml/): it refuses every document a conforming parser refuses
/// (`--` inside a comment, unclosed comments and tags, mismatched tags, undefined entities,
/// unquoted or repeated attributes, text or a second element outside the root, characters
/// XML does not allow), so a file that passes here also passes gdbus-codegen's expat.
///
/// One thing well-formed XML allows is refused too: an internal DTD subset. Introspection
/// data never has one, and entities declared in it would be entities this reader cannot expand.
///
/// ```swift
/// let events = try XMLReader.events(in: "<node><interface name=\"a.B\"/></node>")
/// ```
struct XMLReader {
    private let text: [Unicode.Scalar]
    private var position = 0

    private init(_ xml: String) { text = Array(xml.unicodeScalars) }

    static func events(in xml: String) throws(XMLSyntaxError) -> [XMLEvent] {
        var reader = XMLReader(xml)
        return try reader.document()
    }

    // MARK: The document: prolog, one root element, epilogue

    private mutating func document() throws(XMLSyntaxError) -> [XMLEvent] {
        if peek() == "\u{FEFF}" { position += 1 }
        if starts(with: "<?xml"), let after = scalar(at: position + 5), isSpace(after) { try declaration() }
        var sawDoctype = false
        var events: [XMLEvent] = []
        var sawRoot = false
        while position < text.count {
            if starts(with: "<!--") {
                try comment()
            } else if starts(with: "<?") {
                try processingInstruction()
            } else if starts(with: "<!DOCTYPE") {
                guard !sawDoctype, !sawRoot else { throw failure("a document type declaration after the root element or a second one") }
                try doctype()
                sawDoctype = true
            } else if starts(with: "<!") {
                throw failure("markup that is neither a comment nor a document type declaration outside the root element")
            } else if peek() == "<" {
                guard !sawRoot else { throw failure("a second root element") }
                try element(into: &events)
                sawRoot = true
            } else if let character = peek(), isSpace(character) {
                position += 1
            } else {
                throw failure("text outside the root element")
            }
        }
        guard sawRoot else { throw failure("no root element") }
        return events
    }

    /// `<?xml version="1.0" …?>`, only as the very first thing.
    private mutating func declaration() throws(XMLSyntaxError) {
        let start = position
        position += 5
        guard let end = find("?>") else { throw failure("the XML declaration is not closed", at: start) }
        let content = String(String.UnicodeScalarView(text[position..<end])).trimmingPrefix(while: \.isWhitespace)
        guard content.hasPrefix("version") else { throw failure("the XML declaration does not start with version", at: start) }
        position = end + 2
    }

    /// `<!DOCTYPE node PUBLIC "…" "…">`, `<!DOCTYPE node SYSTEM "…">` or `<!DOCTYPE node>`.
    private mutating func doctype() throws(XMLSyntaxError) {
        position += 9
        try requireSpace("after <!DOCTYPE")
        _ = try name()
        skipSpace()
        if starts(with: "PUBLIC") {
            position += 6
            try requireSpace("after PUBLIC")
            let literalStart = position
            let publicID = try quoted()
            if let bad = publicID.unicodeScalars.first(where: { !isPublicIDCharacter($0) }) {
                throw failure("\"\(bad)\" in a public identifier", at: literalStart)
            }
            try requireSpace("between the public and the system identifier")
            _ = try quoted()
        } else if starts(with: "SYSTEM") {
            position += 6
            try requireSpace("after SYSTEM")
            _ = try quoted()
        }
        skipSpace()
        if peek() == "[" { throw failure("an internal DTD subset, which introspection data never has") }
        guard peek() == ">" else { throw failure("the document type declaration is not closed with >") }
        position += 1
    }

    // MARK: Elements

    /// The root element and everything in it, without recursion.
    private mutating func element(into events: inout [XMLEvent]) throws(XMLSyntaxError) {
        var open: [String] = []
        repeat {
            if starts(with: "<!--") {
                try comment()
            } else if starts(with: "<![CDATA[") {
                let start = position
                position += 9
                guard let end = find("]]>") else { throw failure("a CDATA section is not closed", at: start) }
                try checkCharacters(upTo: end)
                position = end + 3
            } else if starts(with: "<?") {
                try processingInstruction()
            } else if starts(with: "</") {
                let start = position
                position += 2
                let closing = try name()
                skipSpace()
                guard peek() == ">" else { throw failure("the end tag </\(closing)> is not closed with >") }
                position += 1
                guard let innermost = open.last else { throw failure("</\(closing)> closes nothing", at: start) }
                guard innermost == closing else { throw failure("</\(closing)> where </\(innermost)> is due", at: start) }
                open.removeLast()
                events.append(.end(closing))
            } else if starts(with: "<!") {
                throw failure("a declaration inside an element")
            } else if peek() == "<" {
                let (name, attributes, selfClosing) = try startTag()
                events.append(.start(name, attributes: attributes))
                if selfClosing { events.append(.end(name)) } else { open.append(name) }
            } else if peek() == "&" {
                _ = try reference()
            } else if starts(with: "]]>") {
                throw failure("]]> in text")
            } else if let character = peek() {
                guard isCharacter(character) else { throw failure("a character XML does not allow (U+\(hex(character)))") }
                position += 1
            } else {
                throw failure("<\(open.joined(separator: "> <"))> not closed at the end of the document")
            }
        } while !open.isEmpty
    }

    /// `<NAME ATTRIBUTE="VALUE" …>` or `…/>`.
    private mutating func startTag() throws(XMLSyntaxError) -> (String, [String: String], Bool) {
        let start = position
        position += 1
        let element = try name()
        var attributes: [String: String] = [:]
        while true {
            let hadSpace = skipSpace()
            if peek() == ">" {
                position += 1
                return (element, attributes, false)
            }
            if starts(with: "/>") {
                position += 2
                return (element, attributes, true)
            }
            guard peek() != nil else { throw failure("the start tag <\(element)> is not closed", at: start) }
            guard hadSpace else { throw failure("no space before an attribute of <\(element)>") }
            let attributeStart = position
            let attribute = try name()
            skipSpace()
            guard peek() == "=" else { throw failure("attribute \(attribute) of <\(element)> has no value") }
            position += 1
            skipSpace()
            guard let quote = peek(), quote == "\"" || quote == "'" else {
                throw failure("the value of attribute \(attribute) of <\(element)> is not in quotes")
            }
            position += 1
            var value = ""
            while let character = peek(), character != quote {
                switch character {
                case "<": throw failure("< in the value of attribute \(attribute)")
                case "&": value += try reference()
                // Attribute-value normalization: each white-space character becomes a space.
                case "\t", "\n", "\r":
                    value += " "
                    position += 1
                default:
                    guard isCharacter(character) else { throw failure("a character XML does not allow (U+\(hex(character)))") }
                    value.unicodeScalars.append(character)
                    position += 1
                }
            }
            guard peek() == quote else { throw failure("the value of attribute \(attribute) is not closed", at: attributeStart) }
            position += 1
            guard attributes.updateValue(value, forKey: attribute) == nil else {
                throw failure("attribute \(attribute) given twice in <\(element)>", at: attributeStart)
            }
        }
    }

    /// `&amp;` and the other four predefined entities, `&#NN;`, `&#xHH;`: the text it stands for.
    private mutating func reference() throws(XMLSyntaxError) -> String {
        let start = position
        position += 1
        guard let semicolon = text[position...].firstIndex(of: ";") else { throw failure("& that starts no reference", at: start) }
        let body = String(String.UnicodeScalarView(text[position..<semicolon]))
        position = semicolon + 1
        if body.hasPrefix("#") {
            let hexadecimal = body.hasPrefix("#x")
            let digits = body.dropFirst(hexadecimal ? 2 : 1)
            let isDigit: (Character) -> Bool = hexadecimal ? { $0.isASCII && $0.isHexDigit } : { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.allSatisfy(isDigit), let value = UInt32(digits, radix: hexadecimal ? 16 : 10),
                  let character = Unicode.Scalar(value), isCharacter(character) else {
                throw failure("&\(body); is not a character XML allows", at: start)
            }
            return String(Character(character))
        }
        switch body {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "apos": return "'"
        case "quot": return "\""
        default:
            guard isName(body) else { throw failure("& that starts no reference", at: start) }
            throw failure("undefined entity &\(body);", at: start)
        }
    }

    // MARK: Comments and processing instructions

    /// `<!-- … -->`, where the text must not hold `--` (nor end with `-`).
    private mutating func comment() throws(XMLSyntaxError) {
        let start = position
        position += 4
        guard let doubleHyphen = find("--") else { throw failure("a comment is not closed", at: start) }
        try checkCharacters(upTo: doubleHyphen)
        guard scalar(at: doubleHyphen + 2) == ">" else { throw failure("-- inside a comment", at: doubleHyphen) }
        position = doubleHyphen + 3
    }

    /// `<?TARGET …?>`; the target `xml` is reserved for the declaration at the start.
    private mutating func processingInstruction() throws(XMLSyntaxError) {
        let start = position
        position += 2
        let target = try name()
        guard target.lowercased() != "xml" else { throw failure("an XML declaration that is not at the start of the document", at: start) }
        guard let end = find("?>") else { throw failure("a processing instruction is not closed", at: start) }
        if end > position, let first = peek(), !isSpace(first) { throw failure("no space after the target <?\(target)") }
        try checkCharacters(upTo: end)
        position = end + 2
    }

    // MARK: Names, literals, characters

    private mutating func name() throws(XMLSyntaxError) -> String {
        let start = position
        guard let first = peek(), isNameStart(first) else { throw failure("a name is due here") }
        position += 1
        while let character = peek(), isNameStart(character) || isNameCharacter(character) { position += 1 }
        return String(String.UnicodeScalarView(text[start..<position]))
    }

    private func isName(_ candidate: String) -> Bool {
        guard let first = candidate.unicodeScalars.first, isNameStart(first) else { return false }
        return candidate.unicodeScalars.dropFirst().allSatisfy { isNameStart($0) || isNameCharacter($0) }
    }

    /// A literal in double or single quotes, for the document type declaration.
    private mutating func quoted() throws(XMLSyntaxError) -> String {
        guard let quote = peek(), quote == "\"" || quote == "'" else { throw failure("a literal in quotes is due here") }
        let start = position
        guard let end = text[(position + 1)...].firstIndex(of: quote) else { throw failure("a literal is not closed", at: start) }
        position = end + 1
        return String(String.UnicodeScalarView(text[(start + 1)..<end]))
    }

    private mutating func checkCharacters(upTo end: Int) throws(XMLSyntaxError) {
        while position < end {
            guard isCharacter(text[position]) else { throw failure("a character XML does not allow (U+\(hex(text[position])))") }
            position += 1
        }
    }

    // XML 1.0 (Fifth Edition) productions [2] Char, [3] S, [4] NameStartChar, [4a] NameChar, [13] PubidChar.

    private func isCharacter(_ c: Unicode.Scalar) -> Bool {
        switch c.value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }

    private func isSpace(_ c: Unicode.Scalar) -> Bool { c == " " || c == "\t" || c == "\n" || c == "\r" }

    private func isNameStart(_ c: Unicode.Scalar) -> Bool {
        switch c.value {
        case 0x3A, 0x41...0x5A, 0x5F, 0x61...0x7A, 0xC0...0xD6, 0xD8...0xF6, 0xF8...0x2FF, 0x370...0x37D,
             0x37F...0x1FFF, 0x200C...0x200D, 0x2070...0x218F, 0x2C00...0x2FEF, 0x3001...0xD7FF, 0xF900...0xFDCF,
             0xFDF0...0xFFFD, 0x10000...0xEFFFF: true
        default: false
        }
    }

    private func isNameCharacter(_ c: Unicode.Scalar) -> Bool {
        switch c.value {
        case 0x2D, 0x2E, 0x30...0x39, 0xB7, 0x300...0x36F, 0x203F...0x2040: true
        default: false
        }
    }

    private func isPublicIDCharacter(_ c: Unicode.Scalar) -> Bool {
        c == " " || c == "\r" || c == "\n" || ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c)
            || "-'()+,./:=?;!*#@$_%".unicodeScalars.contains(c)
    }

    private func hex(_ c: Unicode.Scalar) -> String {
        let digits = String(c.value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    // MARK: Reading

    private func peek() -> Unicode.Scalar? { scalar(at: position) }

    private func scalar(at index: Int) -> Unicode.Scalar? { index < text.count ? text[index] : nil }

    private func starts(with prefix: String) -> Bool {
        var index = position
        for character in prefix.unicodeScalars {
            guard scalar(at: index) == character else { return false }
            index += 1
        }
        return true
    }

    /// The index where `needle` next starts, from the current position.
    private func find(_ needle: String) -> Int? {
        let pattern = Array(needle.unicodeScalars)
        var index = position
        while index + pattern.count <= text.count {
            if text[index] == pattern[0], Array(text[index..<(index + pattern.count)]) == pattern { return index }
            index += 1
        }
        return nil
    }

    @discardableResult
    private mutating func skipSpace() -> Bool {
        let start = position
        while let character = peek(), isSpace(character) { position += 1 }
        return position > start
    }

    private mutating func requireSpace(_ place: String) throws(XMLSyntaxError) {
        guard skipSpace() else { throw failure("no space \(place)") }
    }

    /// The error at `index` (the current position by default), with its 1-based line and column.
    private func failure(_ reason: String, at index: Int? = nil) -> XMLSyntaxError {
        let end = min(index ?? position, text.count)
        var line = 1, column = 1
        for character in text[..<end] {
            if character == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return XMLSyntaxError(line: line, column: column, reason: reason)
    }
}
