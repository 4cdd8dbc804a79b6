import Glibc
import Synchronization

/// The static host table (`/etc/hosts`), read as the C library's `files`
/// source reads it: `ADDRESS NAME [ALIASES…]`, `#` to the end of a line is a
/// comment, names compare without regard to case.
///
/// Names found here (localhost above all) are answered without waiting for
/// the resolver threads: they cost no network and must not queue behind a
/// slow DNS server.
///
/// ```swift
/// HostsFile(text: "127.0.0.1 localhost\n::1 localhost ip6-localhost\n").addresses(of: "LOCALHOST")
/// // [127.0.0.1, ::1]
/// ```
struct HostsFile: Sendable, Equatable {
    private var table: [String: [IPAddress]] = [:]

    init(text: String) {
        for line in text.split(whereSeparator: \.isNewline) {
            let content = line.prefix { $0 != "#" }
            let fields = content.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, let address = IPAddress(strict: String(fields[0])) else { continue }
            for name in fields.dropFirst() {
                let key = name.lowercased()
                if !(table[key]?.contains(address) ?? false) { table[key, default: []].append(address) }
            }
        }
    }

    /// The addresses listed for `name` in file order; nil when it is not listed.
    func addresses(of name: String) -> [IPAddress]? {
        var key = name.lowercased()
        if key.hasSuffix(".") { key.removeLast() }
        return table[key]
    }

    /// The machine's table, or an empty one when it cannot be read.
    static func load(path: String = "/etc/hosts") -> HostsFile {
        guard let file = fopen(path, "re") else { return HostsFile(text: "") }
        defer { fclose(file) }
        var text = ""
        var buffer = [CChar](repeating: 0, count: 4096)
        while fgets(&buffer, Int32(buffer.count), file) != nil {
            text += buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            if text.utf8.count > 1 << 20 { break }  // a runaway file is not a host table
        }
        return HostsFile(text: text)
    }

    /// A loader that reads the file again only when it changed (one `stat` per call).
    static func cachedLoader(path: String = "/etc/hosts") -> @Sendable () -> HostsFile {
        let cache = HostsFileCache(path: path)
        return { cache.current() }
    }
}

/// The last table read, and the file's identity when it was read.
private final class HostsFileCache: Sendable {
    private let path: String
    private let cached = Mutex<(stamp: [Int], table: HostsFile)?>(nil)

    init(path: String) { self.path = path }

    func current() -> HostsFile {
        var status = stat()
        let stamp = stat(path, &status) == 0
            ? [Int(status.st_ino), Int(status.st_size), status.st_mtim.tv_sec, status.st_mtim.tv_nsec] : []
        if let hit = cached.withLock({ $0 }), hit.stamp == stamp { return hit.table }
        let table = HostsFile.load(path: path)
        cached.withLock { $0 = (stamp, table) }
        return table
    }
}
