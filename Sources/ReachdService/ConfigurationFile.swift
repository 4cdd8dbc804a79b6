/// reachd.conf as text: `[section]` headers and `key=value` lines, read the
/// way GLib's key files (and so NetworkManager.conf) are, so that an
/// administrator can copy NetworkManager's `[connectivity]` lines over.
///
/// Pure: bytes in, entries with their line numbers out, and each line that is
/// not one of the four kinds. What the keys mean is reachd's business
/// (ReachdSetting); this only says where each one was written.
///
/// ```
/// # comment          ; comment too
/// [reachd]
/// settle-ms = 500
/// ```
///
/// Blank lines and lines whose first non-blank character is `#` or `;` are
/// comments; there are no comments after a value (`response=a # b` is the
/// text `a # b`), no quoting and no continuation lines. Spaces and tabs
/// around section names, keys and values are dropped. A key may be written
/// twice; the later one wins when reachd applies them in order.
public struct ConfigurationFile: Equatable, Sendable {
    public struct Entry: Equatable, Sendable {
        public let section: String
        public let key: String
        public let value: String
        /// 1-based, as an editor numbers lines.
        public let line: Int

        public init(section: String, key: String, value: String, line: Int) {
            self.section = section
            self.key = key
            self.value = value
            self.line = line
        }
    }

    public struct SectionHeader: Equatable, Sendable {
        public let name: String
        public let line: Int

        public init(name: String, line: Int) {
            self.name = name
            self.line = line
        }
    }

    /// A line that is none of the four kinds; `description` is what is wrong with it.
    public struct SyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
        public let line: Int
        public let description: String

        public init(line: Int, _ description: String) {
            self.line = line
            self.description = description
        }
    }

    /// Every `[section]` line, in the file's order (a section may appear more than once).
    public private(set) var sections: [SectionHeader] = []
    /// Every `key=value` line, in the file's order.
    public private(set) var entries: [Entry] = []
    /// Every line that is none of the four kinds, in the file's order. `init(bytes:)` throws the
    /// first; `init(readingAll:)` keeps them all, for `reachd --check-config`, which reports
    /// every problem of a file at once rather than one per edit.
    public private(set) var syntaxErrors: [SyntaxError] = []

    /// A file larger than this is refused rather than read: reachd.conf is a
    /// dozen lines, and a mistaken path (a log, a device) should not cost memory.
    public static let maximumSize = 64 * 1024

    public init(parsing text: String) throws(SyntaxError) {
        try self.init(bytes: Array(text.utf8))
    }

    /// The file, or the first line that is none of the four kinds.
    public init(bytes: [UInt8]) throws(SyntaxError) {
        self.init(readingAll: bytes)
        if let first = syntaxErrors.first { throw first }
    }

    /// Reads every line: the good ones into `sections` and `entries`, each bad one into
    /// `syntaxErrors`. The keys under a malformed section header belong to no section anyone
    /// could name, so they are skipped (the header's error stands for them).
    public init(readingAll bytes: [UInt8]) {
        guard bytes.count <= Self.maximumSize else {
            syntaxErrors = [SyntaxError(line: 1, "the file is larger than \(Self.maximumSize / 1024) KiB")]
            return
        }
        enum Section { case none, malformed, named(String) }
        var section = Section.none
        var number = 0
        // A UTF-8 byte order mark (Windows editors write one) is no part of the first line: read
        // as text it is invisible, and an error naming that line could not show the culprit.
        let bytes = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
        for rawLine in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            func refuse(_ description: String) { syntaxErrors.append(SyntaxError(line: number, description)) }
            guard let decoded = String(validating: rawLine, as: UTF8.self) else {
                refuse("the line is not UTF-8 text")
                continue
            }
            let line = Self.trimmed(decoded[...])
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                let name = Self.trimmed(line.dropFirst().dropLast())
                guard line.hasSuffix("]"), line.count >= 2, !name.isEmpty, !name.contains("["), !name.contains("]") else {
                    refuse("a section header is '[name]', not '\(line)'")
                    section = .malformed
                    continue
                }
                section = .named(String(name))
                sections.append(SectionHeader(name: String(name), line: number))
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                refuse("not a '[section]', 'key=value' or '# comment' line: '\(line)'")
                continue
            }
            let key = Self.trimmed(line[..<equals])
            let value = Self.trimmed(line[line.index(after: equals)...])
            guard !key.isEmpty else {
                refuse("no key before '=' in '\(line)'")
                continue
            }
            guard key.unicodeScalars.allSatisfy(Self.isKeyCharacter), key.unicodeScalars.first!.properties.isAlphabetic
                    || ("0"..."9").contains(key.unicodeScalars.first!) else {
                refuse("'\(key)' is not a key: keys are letters, digits, '-', '_' and '.', starting with a letter or digit")
                continue
            }
            switch section {
            case .none:
                refuse("'\(key)' comes before any '[section]' line")
            case .malformed:
                continue
            case .named(let name):
                entries.append(Entry(section: name, key: String(key), value: String(value), line: number))
            }
        }
    }

    private static func isKeyCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-", "_", ".": true
        default: false
        }
    }

    private static func trimmed(_ text: Substring) -> Substring {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = text.firstIndex(where: { !isBlank($0) }) else { return text[text.endIndex...] }
        let last = text.lastIndex(where: { !isBlank($0) })!
        return text[first...last]
    }
}

extension ConfigurationFile {
    /// Where reachd looks, in order; it reads the first file that exists and
    /// only that one (XDG Base Directory: `$XDG_CONFIG_HOME`, default
    /// `~/.config`, then each of `$XDG_CONFIG_DIRS`, default `/etc/xdg`).
    /// Relative directories are ignored, as the specification says.
    ///
    /// ```
    /// ConfigurationFile.searchPaths(environment: ["HOME": "/home/ada"])
    /// // ["/home/ada/.config/reachd/reachd.conf", "/etc/xdg/reachd/reachd.conf"]
    /// ```
    /// The one file the system instance (`reachd --system`) reads: it serves every user, so no
    /// user's XDG directories apply.
    public static let systemInstancePath = "/etc/reachd/reachd.conf"

    public static func searchPaths(environment: [String: String]) -> [String] {
        let absolute: (String?) -> String? = { path in
            guard let path, path.hasPrefix("/") else { return nil }
            return path
        }
        var directories: [String] = []
        if let home = absolute(environment["XDG_CONFIG_HOME"]) {
            directories.append(home)
        } else if let home = absolute(environment["HOME"]) {
            directories.append((home.hasSuffix("/") ? String(home.dropLast()) : home) + "/.config")
        }
        let systemDirectories = (environment["XDG_CONFIG_DIRS"] ?? "").split(separator: ":").compactMap { absolute(String($0)) }
        directories += systemDirectories.isEmpty ? ["/etc/xdg"] : systemDirectories
        return directories.map { ($0.hasSuffix("/") ? String($0.dropLast()) : $0) + "/reachd/reachd.conf" }
    }
}
