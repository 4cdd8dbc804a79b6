import Glibc
import ReachabilityEngine
import ReachabilityService

/// reachd.conf, found, read and applied once at start.
///
/// Only one file is read: the first of `ConfigurationFile.searchPaths` that
/// exists (or `--config FILE`). Its options lie over the defaults and under
/// the command line. A key reachd does not know is a warning (a newer
/// reachd's key, or a typo, must not stop the service an administrator
/// depends on); a line that is not INI, or a known key with a value its
/// option would refuse, stops reachd with exit status 64 and `FILE:LINE:`.
struct ReachdConfiguration {
    /// The file read, nil when none was.
    var path: String?
    /// Where reachd looked, for the start-up log when it found nothing.
    var searched = "--no-config"
    /// The file's options over the defaults.
    var options = ReachdOptions()
    /// `FILE:LINE: …` for each key and section reachd does not know, to log once the log exists.
    var warnings: [String] = []

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Finds and reads the file `choice` names (`environment` gives the XDG directories).
    /// `system`: the system instance's file (`/etc/reachd/reachd.conf`) instead of the XDG search.
    static func load(_ choice: ReachdCommandLine.Configuration, environment: [String: String],
                     system: Bool = false) throws(Failure) -> ReachdConfiguration {
        switch choice {
        case .none:
            return ReachdConfiguration()
        case .file(let path):
            guard let bytes = try contents(of: path) else { throw Failure(description: "\(path): no such file") }
            return try parse(bytes, path: path)
        case .search:
            let paths = system ? [ConfigurationFile.systemInstancePath] : ConfigurationFile.searchPaths(environment: environment)
            for path in paths {
                if let bytes = try contents(of: path) { return try parse(bytes, path: path) }
            }
            return ReachdConfiguration(searched: "looked for " + paths.joined(separator: ", "))
        }
    }

    /// Applies the text of the file at `path` over the defaults.
    static func parse(_ bytes: [UInt8], path: String) throws(Failure) -> ReachdConfiguration {
        let file: ConfigurationFile
        do {
            file = try ConfigurationFile(bytes: bytes)
        } catch {
            throw Failure(description: "\(path):\(error.line): \(error.description)")
        }
        var configuration = ReachdConfiguration(path: path)
        var warnings: [(line: Int, text: String)] = []
        let keyed = ReachdSetting.all.filter { $0.section != nil }
        let known = Set(keyed.map { $0.section! })
        var warnedSections: Set<String> = []
        for header in file.sections where !known.contains(header.name) && warnedSections.insert(header.name).inserted {
            warnings.append((header.line, "\(path):\(header.line): unknown section [\(header.name)]; its keys are ignored"))
        }
        // NetworkManager's own switch for its check, so that its [connectivity]
        // lines can be copied whole: false turns reachd's off too, wherever it stands.
        var checkEnabled = true
        for entry in file.entries where known.contains(entry.section) {
            if entry.section == "connectivity", entry.key == "enabled" {
                do {
                    checkEnabled = try ReachdSetting.boolean(entry.value)
                } catch {
                    throw Failure(description: "\(path):\(entry.line): enabled \(error)")
                }
                continue
            }
            guard let setting = keyed.first(where: { $0.section == entry.section && $0.key == entry.key }) else {
                let elsewhere = keyed.first(where: { $0.key == entry.key }).flatMap(\.section)
                warnings.append((entry.line, "\(path):\(entry.line): unknown key '\(entry.key)' in [\(entry.section)]"
                    + (elsewhere.map { "; it belongs in [\($0)]" } ?? "") + "; ignored"))
                continue
            }
            do {
                try setting.apply(&configuration.options, entry.value)
            } catch {
                throw Failure(description: "\(path):\(entry.line): \(entry.key) \(error)")
            }
        }
        if !checkEnabled { configuration.options.connectivityURI = nil }
        configuration.warnings = warnings.sorted { $0.line < $1.line }.map(\.text)
        return configuration
    }

    /// The file's bytes; nil when there is no such file (no error: the file is optional).
    private static func contents(of path: String) throws(Failure) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let error = errno
            if error == ENOENT || error == ENOTDIR { return nil }
            throw Failure(description: "\(path): cannot open it: \(String(cString: strerror(error)))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw Failure(description: "\(path): not a regular file")
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count <= ConfigurationFile.maximumSize {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw Failure(description: "\(path): cannot read it: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            bytes += buffer[..<count]
        }
        return bytes
    }
}
