/// The kernel's `/proc/net/wireless`: each wireless interface's link quality, where no daemon
/// says how good the signal is (reachd without NetworkManager or ConnMan).
///
/// The file's third column is the driver's link quality, out of the driver's own maximum, which
/// is 70 for mac80211 drivers (cfg80211's wireless-extensions shim reports the signal as
/// `dBm + 110`, capped at 70); it is scaled to a percentage on that scale.
///
/// ```swift
/// let text = """
/// Inter-| sta-|   Quality        |   Discarded packets               | Missed | WE
///  face | tus | link level noise |  nwid  crypt   frag  retry   misc | beacon | 22
/// wlan0: 0000   54.  -56.  -256        0      0      0      0     12        0
/// """
/// WirelessStatistics(text: text).signalPercent(of: "wlan0")   // 77
/// ```
public struct WirelessStatistics: Sendable, Hashable {
    /// The link quality column by interface name, as the kernel wrote it.
    public private(set) var linkQuality: [String: Double] = [:]
    /// The maximum of that column for mac80211 drivers.
    public static let maximumLinkQuality = 70.0

    public init(text: String) {
        for line in text.split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingSpaces
            let fields = line[line.index(after: colon)...].split(separator: " ", omittingEmptySubsequences: true)
            // status, link, level, noise, …; the header lines have no number there.
            guard !name.isEmpty, fields.count >= 2,
                  let quality = Double(fields[1].hasSuffix(".") ? fields[1].dropLast() : fields[1]),
                  quality.isFinite else { continue }
            linkQuality[name] = quality
        }
    }

    /// The signal of `interface` as a percentage, nil when the file does not list it.
    public func signalPercent(of interface: String) -> UInt8? {
        guard let quality = linkQuality[interface] else { return nil }
        let percent = (quality / Self.maximumLinkQuality * 100).rounded()
        return UInt8(min(max(percent, 0), 100))
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
