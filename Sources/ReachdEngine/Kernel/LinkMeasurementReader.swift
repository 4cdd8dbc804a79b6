import ReachdCore

/// Reads the kernel's measurements of one link for its quality: the Ethernet speed from sysfs and
/// the Wi-Fi signal from `/proc/net/wireless`. Read with the rest of the kernel's view (on a kernel
/// event), never polled: a stable link costs nothing, and a signal the kernel alone measures is
/// as fresh as the last change of the path.
enum LinkMeasurementReader {
    static func measurements(of interface: String, type: InterfaceType) -> LinkQualityInputs {
        switch type {
        case .ethernet:
            return LinkQualityInputs(ethernetSpeedMegabits: ethernetSpeed(of: interface))
        case .wifi:
            let statistics = WirelessStatistics(text: LinkInspector.read("/proc/net/wireless") ?? "")
            return LinkQualityInputs(signalPercent: statistics.signalPercent(of: interface), signalSource: .kernel)
        default:
            return .none
        }
    }

    /// `/sys/class/net/IF/speed` in Mb/s; nil where the driver does not know it (it reads -1, or
    /// the read fails: no carrier) or reports 0.
    static func ethernetSpeed(of interface: String) -> UInt32? {
        guard !interface.contains("/"), let text = LinkInspector.read("/sys/class/net/\(interface)/speed"),
              let speed = Int64(text.filter { !$0.isWhitespace }), speed > 0, speed <= Int64(UInt32.max) else { return nil }
        return UInt32(speed)
    }
}
