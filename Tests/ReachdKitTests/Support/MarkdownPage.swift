import Foundation

/// One Markdown file of the documentation, read as GitHub renders it as far as links go: its
/// relative links and the anchors its headings get. Text in fenced code blocks and in code spans
/// is neither a link nor a heading.
struct MarkdownPage {
    /// A link target as written, and the line it is on (1-based).
    struct Link: Equatable {
        let target: String
        let line: Int
    }

    let url: URL
    /// Links that lead into this repository: no scheme (`https:`, `mailto:`), not protocol-relative.
    let relativeLinks: [Link]
    /// The `#` fragments GitHub gives the headings, in order; a repeated one gets `-1`, `-2`, ….
    let anchors: Set<String>

    init(url: URL) throws {
        self.url = url
        let text = try String(contentsOf: url, encoding: .utf8)
        var links: [Link] = []
        var anchors: Set<String> = []
        var anchorCounts: [String: Int] = [:]
        var fence: String?
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(rawLine)
            let trimmed = line.drop { $0 == " " }
            // A fence opens with three or more backticks or tildes and closes with the same kind.
            if let open = fence {
                if trimmed.hasPrefix(open) { fence = nil }
                continue
            }
            if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") {
                fence = String(trimmed.prefix(3))
                continue
            }
            let prose = Self.codeSpans(in: line, keepingText: false)
            if let heading = Self.headingText(Self.codeSpans(in: line, keepingText: true)) {
                let slug = Self.slug(heading)
                let count = anchorCounts[slug, default: 0]
                anchorCounts[slug] = count + 1
                anchors.insert(count == 0 ? slug : "\(slug)-\(count)")
            }
            for target in Self.linkTargets(prose) where Self.isRelative(target) {
                links.append(Link(target: target, line: index + 1))
            }
        }
        relativeLinks = links
        self.anchors = anchors
    }

    /// `line` with each code span (a run of backticks to the next run of the same length) replaced
    /// by its text, as a heading renders it, or dropped, so that no link is read in code.
    static func codeSpans(in line: String, keepingText: Bool) -> String {
        var result = ""
        var rest = Substring(line)
        while let start = rest.firstIndex(of: "`") {
            result += rest[..<start]
            let run = rest[start...].prefix { $0 == "`" }
            let afterOpening = rest[run.endIndex...]
            // The closing run has exactly the opening's length.
            var search = afterOpening
            var closingEnd: Substring.Index?
            while let next = search.firstIndex(of: "`") {
                let closing = search[next...].prefix { $0 == "`" }
                if closing.count == run.count { closingEnd = closing.endIndex; break }
                search = search[closing.endIndex...]
            }
            guard let end = closingEnd else {
                // No closing run: the backticks are literal text.
                result += run
                rest = afterOpening
                continue
            }
            if keepingText { result += afterOpening[..<rest.index(end, offsetBy: -run.count)] }
            rest = rest[end...]
        }
        return result + rest
    }

    /// The text of an ATX heading (`## Text`), or nil for any other line.
    static func headingText(_ line: String) -> String? {
        let hashes = line.prefix { $0 == "#" }
        guard (1...6).contains(hashes.count), line.dropFirst(hashes.count).first == " " else { return nil }
        return line.dropFirst(hashes.count + 1).trimmingCharacters(in: .whitespaces)
    }

    /// GitHub's anchor for a heading: the rendered text (a link's text, not its target) lowercased,
    /// every character but letters, digits, `-`, `_` and spaces dropped, spaces made `-`.
    static func slug(_ heading: String) -> String {
        var text = heading
        while let open = text.range(of: "]("), let close = text[open.upperBound...].firstIndex(of: ")"),
              let bracket = text[..<open.lowerBound].lastIndex(of: "[") {
            let label = text[text.index(after: bracket)..<open.lowerBound]
            text.replaceSubrange(bracket...close, with: label)
        }
        return String(text.lowercased().compactMap { character -> Character? in
            if character == " " { return "-" }
            if character.isLetter || character.isNumber || character == "-" || character == "_" { return character }
            return nil
        })
    }

    /// The targets of inline links and images, `[text](target)` and `[text](target "title")`,
    /// and of reference definitions, `[name]: target`.
    static func linkTargets(_ line: String) -> [String] {
        var targets: [String] = []
        var rest = Substring(line)
        while let open = rest.range(of: "](") {
            let after = rest[open.upperBound...]
            guard let close = after.firstIndex(of: ")") else { break }
            let inside = after[..<close].trimmingCharacters(in: .whitespaces)
            if let target = inside.split(separator: " ").first { targets.append(String(target)) }
            rest = after[close...]
        }
        let trimmed = line.drop { $0 == " " }
        if trimmed.hasPrefix("["), let colon = trimmed.range(of: "]: ") {
            if let target = trimmed[colon.upperBound...].split(separator: " ").first { targets.append(String(target)) }
        }
        return targets
    }

    static func isRelative(_ target: String) -> Bool {
        if target.hasPrefix("//") { return false }
        guard let colon = target.firstIndex(of: ":") else { return true }
        // A scheme is letters, digits, `+`, `-` and `.` before the first colon, starting with a letter.
        let scheme = target[..<colon]
        let isScheme = scheme.first?.isLetter == true && scheme.allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) }
        return !isScheme
    }
}
