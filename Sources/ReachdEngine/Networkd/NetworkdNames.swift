import ReachdDBus

/// systemd-networkd's names on the system bus, spelled once.
enum NetworkdNames {
    static let bus: BusName = "org.freedesktop.network1"
    static let managerPath: ObjectPath = "/org/freedesktop/network1"
    static let managerInterface: InterfaceName = "org.freedesktop.network1.Manager"
    /// Link objects live under it: `/org/freedesktop/network1/link/_32` is index 2.
    static let linkPathPrefix = "/org/freedesktop/network1/link/"

    /// The link index a link object's path stands for (sd-bus escapes every byte that is not
    /// a letter or digit, and a leading digit, as `_XX`), nil for any other path.
    static func linkIndex(of path: ObjectPath) -> Int? {
        guard path.rawValue.hasPrefix(linkPathPrefix) else { return nil }
        var bytes: [UInt8] = []
        var escaped = Array(path.rawValue.utf8.dropFirst(linkPathPrefix.utf8.count))[...]
        while let byte = escaped.popFirst() {
            if byte == UInt8(ascii: "_") {
                guard escaped.count >= 2,
                      let value = UInt8(String(decoding: escaped.prefix(2), as: UTF8.self), radix: 16) else { return nil }
                bytes.append(value)
                escaped = escaped.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return Int(String(decoding: bytes, as: UTF8.self))
    }
}
