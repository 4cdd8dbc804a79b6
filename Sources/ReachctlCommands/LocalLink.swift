import Glibc

/// What the kernel says of one link, read from `/sys/class/net` (reachctl shares reachd's
/// network namespace: a reachd of another is never used), for why `wait -i IF` is not met when
/// reachd does not list the link in `AvailableInterfaces`.
enum LocalLink: Equatable {
    case absent
    /// Administratively down (`ip link set IF down`).
    case down
    /// Up, with no carrier (a cable out, a peer down).
    case noCarrier
    /// Up with carrier.
    case up

    static func state(of name: String) -> LocalLink {
        // A name with a slash or a dot path would read another file.
        guard !name.contains("/"), name != ".", name != ".." else { return .absent }
        let folder = "/sys/class/net/\(name)"
        guard access(folder, F_OK) == 0 else { return .absent }
        // IFF_UP (0x1) in the link's flags.
        guard let flags = read(folder + "/flags").flatMap({ Int($0.dropFirst(2), radix: 16) }), flags & 0x1 != 0 else { return .down }
        // carrier reads 1 or 0 while up (and fails while down).
        return read(folder + "/carrier") == "1" ? .up : .noCarrier
    }

    private static func read(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 64)
        guard fgets(&buffer, 64, file) != nil else { return nil }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.filter { $0 != "\n" && $0 != " " }
    }
}
