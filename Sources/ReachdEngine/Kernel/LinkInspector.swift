import Glibc
import ReachdCore

/// Reads what the kernel says about a network interface: sysfs for everything it shows
/// (medium, flags, carrier, bus, bridge, ports, master, lower links, tun flags), and one
/// `RTM_GETLINK` for the link kind, which sysfs does not show. All unprivileged.
enum LinkInspector {
    /// The interface's name for a kernel index, nil if it is gone.
    static func name(ofIndex index: UInt32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
        guard if_indextoname(index, &buffer) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The facts about the interface `name`, nil if it has no sysfs directory (it is gone, or
    /// the name came from a stale `brif/` or `lower_*` entry). `index` saves a read when the
    /// caller knows it; `lookup` asks the kernel for the kind (without it, or without an answer,
    /// the kind comes from sysfs markers: see `kindFromSysfs`).
    static func facts(of name: String, index: UInt32? = nil, lookup: LinkLookup? = LinkLookup.shared) -> LinkFacts? {
        let base = "/sys/class/net/\(name)"
        guard let typeText = read(base + "/type") else { return nil }
        let devtype = read(base + "/uevent")?
            .split(separator: "\n")
            .first { $0.hasPrefix("DEVTYPE=") }
            .map { String($0.dropFirst("DEVTYPE=".count)) } ?? ""
        // sysfs `flags` holds the configured flags only, without IFF_RUNNING, hence `carrier`
        // (which cannot even be read while the link is down).
        let flags = hexadecimal(read(base + "/flags")) ?? 0
        let isUp = flags & UInt32(IFF_UP) != 0
        let tunFlags = hexadecimal(read(base + "/tun_flags"))
        let ports = entries(of: base + "/brif")
        var facts = LinkFacts(
            name: name,
            hasWirelessDir: exists(base + "/wireless"),
            hasPhy80211: exists(base + "/phy80211"),
            devtype: devtype,
            arphrdType: UInt16(typeText.trimmingWhitespace) ?? 0,
            isUp: isUp,
            hasCarrier: isUp && read(base + "/carrier")?.trimmingWhitespace == "1",
            isLoopback: flags & UInt32(IFF_LOOPBACK) != 0,
            hasMaster: exists(base + "/master"),
            isBridgePort: exists(base + "/brport"),
            hasDeviceLink: exists(base + "/device"),
            isBridge: exists(base + "/bridge"),
            bridgePorts: ports,
            lowerLinks: entries(of: base).filter { $0.hasPrefix("lower_") }.map { String($0.dropFirst("lower_".count)) },
            tunFlags: tunFlags ?? 0)
        let linkIndex = index ?? read(base + "/ifindex").flatMap { UInt32($0.trimmingWhitespace) }
        switch linkIndex.flatMap({ lookup?.link(index: $0) }) {
        case .link(let kind):
            facts.kind = kind
        case .refused, .noAnswer, nil:
            facts.kind = kindFromSysfs(devtype: devtype, isTun: tunFlags != nil, isBridge: facts.isBridge)
        }
        return facts
    }

    /// The kind as far as sysfs tells it, for when the kernel did not answer `RTM_GETLINK`:
    /// tun/tap devices have `tun_flags`, bridges `bridge/`, and some drivers set DEVTYPE.
    /// veth, dummy, ifb and the IP tunnels leave no mark, and stay nil.
    static func kindFromSysfs(devtype: String, isTun: Bool, isBridge: Bool) -> LinkKind? {
        if isTun { return .tun }
        if isBridge { return .bridge }
        let marked: Set<LinkKind> = [.bond, .vlan, .wireguard, .vxlan, .geneve, .macvlan, .ipvlan]
        let kind = LinkKind(rawValue: devtype)
        return marked.contains(kind) ? kind : nil
    }

    private static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// `0x1003` as sysfs writes `flags` and `tun_flags`.
    private static func hexadecimal(_ text: String?) -> UInt32? {
        guard let text = text?.trimmingWhitespace else { return nil }
        return UInt32(text.hasPrefix("0x") ? String(text.dropFirst(2)) : text, radix: 16)
    }

    /// A small sysfs or procfs file (one read of at most 4 KiB), nil when it cannot be read.
    static func read(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = Glibc.read(descriptor, &buffer, buffer.count)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// Every network interface of this namespace, by name, sorted.
    static func allNames() -> [String] { entries(of: "/sys/class/net") }

    /// The names in a directory, sorted (so a bond's first port is the same every round),
    /// empty if it does not exist.
    private static func entries(of path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }
}

extension String {
    var trimmingWhitespace: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
