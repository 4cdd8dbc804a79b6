/// What ModemManager says of its modems' signals: `SignalQuality`'s percentage by modem object
/// path (`/org/freedesktop/ModemManager1/Modem/0`), the path a NetworkManager modem device names
/// as its `Udi`. Input of `LinkQualityInputs.ofPath` for a cellular path NetworkManager runs.
///
/// ```swift
/// let modems = ModemSignals(percentByModem: ["/org/freedesktop/ModemManager1/Modem/0": 63])
/// ```
public struct ModemSignals: Sendable, Hashable {
    public var percentByModem: [String: UInt8]

    public init(percentByModem: [String: UInt8] = [:]) {
        self.percentByModem = percentByModem.mapValues { min($0, 100) }
    }
}
