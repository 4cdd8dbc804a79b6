/// What link quality is graded from: the measurements Linux has for the path's interface
/// (contract 6, §5). Each is nil when nobody says.
///
/// ```swift
/// let inputs = LinkQualityInputs(signalPercent: 72, signalSource: .networkManager)
/// inputs.graded(for: .wifi, previous: .unknown)   // .good
/// ```
public struct LinkQualityInputs: Sendable, Hashable {
    /// Who measured the radio signal (the `Details` key `link-signal-source`).
    public enum SignalSource: String, Sendable, CaseIterable {
        /// NetworkManager's active access point `Strength`.
        case networkManager = "networkmanager"
        /// ModemManager's `SignalQuality` of the modem NetworkManager runs.
        case modemManager = "modemmanager"
        /// ConnMan's service `Strength`.
        case connman
        /// The kernel's `/proc/net/wireless` link quality, scaled to 0–100.
        case kernel
    }

    /// The radio signal of the path's Wi-Fi or cellular link, 0–100 (`link-signal`).
    public var signalPercent: UInt8?
    public var signalSource: SignalSource?
    /// The path's Ethernet link speed in Mb/s (`/sys/class/net/IF/speed`; `link-speed-mbps`).
    public var ethernetSpeedMegabits: UInt32?

    public init(signalPercent: UInt8? = nil, signalSource: SignalSource? = nil, ethernetSpeedMegabits: UInt32? = nil) {
        self.signalPercent = signalPercent.map { min($0, 100) }
        self.signalSource = signalPercent == nil ? nil : signalSource
        self.ethernetSpeedMegabits = ethernetSpeedMegabits
    }

    public static let none = LinkQualityInputs()

    /// The grade of the link of `type`, moving away from `previous` only past a hysteresis band
    /// (`LinkQualityThresholds`), so that a signal fluttering around a threshold keeps its grade.
    ///
    /// Radio links (Wi-Fi, cellular) are graded on the signal, Ethernet on its speed; every other
    /// medium, and a link without its measurement, is `unknown`.
    public func graded(for type: InterfaceType, previous: LinkQuality,
                       thresholds: LinkQualityThresholds = .standard) -> LinkQuality {
        switch type {
        case .wifi, .wwan:
            guard let signalPercent else { return .unknown }
            return thresholds.gradeSignal(Int(signalPercent), previous: previous)
        case .ethernet:
            guard let ethernetSpeedMegabits else { return .unknown }
            return thresholds.gradeSpeed(ethernetSpeedMegabits)
        case .vpn, .bluetooth, .other, .none:
            return .unknown
        }
    }
}
