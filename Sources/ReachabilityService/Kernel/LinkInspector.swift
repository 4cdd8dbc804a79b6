import Glibc
import ReachabilityCore

/// Reads what sysfs says about a network interface: its medium and whether
/// it is up and running. Pure reads of small files; no netlink needed.
enum LinkInspector {
    /// The interface's name for a kernel index, nil if it is gone.
    static func name(ofIndex index: UInt32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
        guard if_indextoname(index, &buffer) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func facts(of name: String) -> LinkFacts {
        let base = "/sys/class/net/\(name)"
        let devtype = read(base + "/uevent")?
            .split(separator: "\n")
            .first { $0.hasPrefix("DEVTYPE=") }
            .map { String($0.dropFirst("DEVTYPE=".count)) } ?? ""
        return LinkFacts(
            name: name,
            hasWirelessDir: exists(base + "/wireless"),
            hasPhy80211: exists(base + "/phy80211"),
            devtype: devtype,
            arphrdType: UInt16(read(base + "/type")?.trimmingWhitespace ?? "") ?? 0)
    }

    /// Administratively up (IFF_UP in `flags`) and with carrier (`carrier`
    /// is 1), which is how `ip link` reports "UP,LOWER_UP". sysfs `flags`
    /// holds the configured flags only, without IFF_RUNNING, hence `carrier`
    /// (which cannot even be read while the link is down).
    static func isUpAndRunning(_ name: String) -> Bool {
        guard let text = read("/sys/class/net/\(name)/flags")?.trimmingWhitespace,
              let flags = UInt32(text.hasPrefix("0x") ? String(text.dropFirst(2)) : text, radix: 16),
              flags & UInt32(IFF_UP) != 0 else { return false }
        return read("/sys/class/net/\(name)/carrier")?.trimmingWhitespace == "1"
    }

    private static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    private static func read(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = Glibc.read(descriptor, &buffer, buffer.count)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }
}

extension String {
    var trimmingWhitespace: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
