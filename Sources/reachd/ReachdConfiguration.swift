import Glibc
import ReachdEngine
import ReachdService

/// reachd.conf, found, read and applied once at start, or checked (`reachd --check-config`).
///
/// Only one file is read: the first of `ConfigurationFile.searchPaths` that exists (or
/// `--config FILE`). Its options lie over the defaults and under the command line. Every
/// problem of the file is collected, with its line, never only the first:
///
/// - an error (a line that is not INI, a known key with a value its option would refuse, a file
///   that cannot be read) stops reachd with exit status 64;
/// - a warning (a key or section reachd does not know: a newer reachd's, or a typo) is logged,
///   and reachd serves without what it names, since an administrator depends on the service.
///   A misspelt section costs all its keys (`[conectivity]` leaves the check off), so its
///   warning says which section was likely meant and what is lost.
struct ReachdConfiguration {
    /// The file read, nil when none was.
    var path: String?
    /// The files looked for, in order, when none was given (for the start-up log and
    /// `--check-config`'s report); empty with `--no-config`.
    var searched: [String] = []
    /// The file `--config` named, where it does not exist: said at notice at start.
    var namedButMissing: String?
    /// The file's options over the defaults.
    var options = ReachdOptions()
    /// Every problem of the file, in the order of its lines.
    var problems: [Problem] = []

    var errors: [Problem] { problems.filter { $0.severity == .error } }
    var warnings: [Problem] { problems.filter { $0.severity == .warning } }

    /// One problem, as `FILE:LINE: what` (or `FILE: what` for the file as a whole).
    struct Problem: CustomStringConvertible, Equatable {
        enum Severity: String { case warning, error }

        let severity: Severity
        let path: String
        let line: Int?
        let text: String

        var description: String { line.map { "\(path):\($0): \(text)" } ?? "\(path): \(text)" }

        /// `FILE:LINE: error: what`, as compilers write, for `--check-config`.
        var diagnostic: String { line.map { "\(path):\($0): \(severity): \(text)" } ?? "\(path): \(severity): \(text)" }
    }

    /// Finds and reads the file `choice` names (`environment` gives the XDG directories).
    /// `system`: the system instance's file (`/etc/reachd/reachd.conf`) instead of the XDG search.
    static func read(_ choice: ReachdCommandLine.Configuration, environment: [String: String],
                     system: Bool = false) -> ReachdConfiguration {
        switch choice {
        case .none:
            return ReachdConfiguration()
        case .file(let path):
            // One rule for every file reachd reads: a missing one is no error, even named by
            // --config (an image's data partition is empty on first boot and after a reset).
            // Only a file that is there and cannot be used is.
            let configuration = read(path, mustExist: false, system: system)
            return configuration.path == nil ? ReachdConfiguration(searched: [path], namedButMissing: path) : configuration
        case .search:
            let paths = system ? [ConfigurationFile.systemInstancePath] : ConfigurationFile.searchPaths(environment: environment)
            for path in paths {
                let configuration = read(path, mustExist: false, system: system)
                if configuration.path != nil { return configuration }
            }
            return ReachdConfiguration(searched: paths)
        }
    }

    /// The file at `path`; nil `path` in the result when it does not exist and need not.
    /// `system`: the system instance's rules for whose the file and its folders are.
    private static func read(_ path: String, mustExist: Bool, system: Bool) -> ReachdConfiguration {
        switch ConfigurationFileAccess.read(path, system: system) {
        case .contents(let bytes):
            return parse(bytes, path: path)
        case .absent:
            guard mustExist else { return ReachdConfiguration() }
            return ReachdConfiguration(path: path, problems: [Problem(severity: .error, path: path, line: nil, text: "no such file")])
        case .refused(let reasons):
            return ReachdConfiguration(path: path, problems: reasons.map { Problem(severity: .error, path: path, line: nil, text: $0) })
        }
    }

    /// Applies the text of the file at `path` over the defaults, collecting every problem.
    static func parse(_ bytes: [UInt8], path: String) -> ReachdConfiguration {
        let file = ConfigurationFile(readingAll: bytes)
        var configuration = ReachdConfiguration(path: path)
        var problems = file.syntaxErrors.map { Problem(severity: .error, path: path, line: $0.line, text: $0.description) }
        func warn(_ line: Int, _ text: String) { problems.append(Problem(severity: .warning, path: path, line: line, text: text)) }
        func refuse(_ line: Int, _ text: String) { problems.append(Problem(severity: .error, path: path, line: line, text: text)) }

        let known = Set(ReachdSetting.sections)
        var warnedSections: Set<String> = []
        for header in file.sections where !known.contains(header.name) && warnedSections.insert(header.name).inserted {
            let keys = file.entries.filter { $0.section == header.name }.map(\.key)
            warn(header.line, unknownSection(header.name, keys: keys))
        }
        // NetworkManager's own switch for its check, so that its [connectivity]
        // lines can be copied whole: false turns reachd's off too, wherever it stands.
        var checkEnabled = true
        // A key given twice in one section: the later line counts (as the lines are applied in
        // order), and the earlier is likely a forgotten edit, so both lines are named.
        var firstLine: [String: Int] = [:]
        for entry in file.entries where known.contains(entry.section) {
            let name = "[\(entry.section)] \(entry.key)"
            if let first = firstLine[name] {
                warn(entry.line, "\(name) is also set on line \(first); this line (\(entry.line)) counts, line \(first) is ignored")
            } else {
                firstLine[name] = entry.line
            }
            if entry.section == "connectivity", entry.key == "enabled" {
                do {
                    checkEnabled = try ReachdSetting.boolean(entry.value)
                } catch {
                    refuse(entry.line, "enabled \(error)")
                }
                continue
            }
            guard let setting = ReachdSetting.setting(section: entry.section, key: entry.key) else {
                warn(entry.line, unknownKey(entry.key, in: entry.section))
                continue
            }
            let comment = Self.trailingComment(entry.value)
            do {
                try setting.apply(&configuration.options, entry.value)
                if let comment {
                    warn(entry.line, "\(entry.key) is '\(entry.value)', '\(comment)' included; if that is a comment, \(Self.commentsRule)")
                }
            } catch {
                refuse(entry.line, "\(entry.key) \(error)" + (comment.map { "; '\($0)' looks like a comment: \(Self.commentsRule)" } ?? ""))
            }
        }
        if !checkEnabled { configuration.options.connectivityURI = nil }
        configuration.problems = problems.enumerated().sorted { ($0.element.line ?? 0, $0.offset) < ($1.element.line ?? 0, $1.offset) }
            .map(\.element)
        return configuration
    }

    // MARK: Warnings

    /// What a value with a comment after it gets told: reachd.conf reads as GLib's key files do.
    static let commentsRule = "comments go on a line of their own (a value is the rest of its line)"

    /// The part of `value` from a `#` or `;` after a blank (`http://x/ # my check`): a comment
    /// written after the value, which the file format takes as part of it.
    private static func trailingComment(_ value: String) -> String? {
        var previous: Character?
        for index in value.indices {
            let character = value[index]
            if character == "#" || character == ";", previous == " " || previous == "\t" { return String(value[index...]) }
            previous = character
        }
        return nil
    }

    /// `unknown section [conectivity]; did you mean [connectivity]? …`: what was likely meant,
    /// and what reachd goes without.
    private static func unknownSection(_ name: String, keys: [String]) -> String {
        let meant = closest(to: name, among: ReachdSetting.sections)
            ?? Set(keys.compactMap { key in ReachdSetting.all.first { $0.key == key }?.section }).onlyElement
        var text = "unknown section [\(name)]" + (meant.map { "; did you mean [\($0)]? Its" } ?? "; its")
        guard !keys.isEmpty else { return text + " keys would be ignored (it has none)" }
        text += " keys are ignored: " + keys.joined(separator: ", ")
        if meant == "connectivity", keys.contains("uri") { text += "; so reachd's own connectivity check is off" }
        return text
    }

    /// `unknown key 'intervall' in [connectivity] (did you mean 'interval'?); ignored`, or where
    /// the key belongs when it is another section's.
    private static func unknownKey(_ key: String, in section: String) -> String {
        let keys = ReachdSetting.all.filter { $0.section == section }.map(\.key) + (section == "connectivity" ? ["enabled"] : [])
        var text = "unknown key '\(key)' in [\(section)]"
        if let elsewhere = ReachdSetting.all.first(where: { $0.key == key && $0.section != nil })?.section {
            text += "; it belongs in [\(elsewhere)]"
        } else if let meant = closest(to: key, among: keys) {
            text += " (did you mean '\(meant)'?)"
        }
        return text + "; ignored"
    }

    /// The one name of `names` that `word` is likely a slip for: the same but for case, or at
    /// most two letters added, dropped, changed or swapped (one for short words).
    private static func closest(to word: String, among names: [String]) -> String? {
        let lower = word.lowercased()
        let limit = lower.count <= 4 ? 1 : 2
        let near = names.filter { lower == $0 || editDistance(lower, $0) <= limit }
        return near.count == 1 ? near[0] : nil
    }

    /// Optimal string alignment distance (Levenshtein with adjacent swaps).
    private static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}

extension Set {
    /// The element of a set of one; nil for an empty set or a larger one.
    fileprivate var onlyElement: Element? { count == 1 ? first : nil }
}
