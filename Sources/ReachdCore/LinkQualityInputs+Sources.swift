extension LinkQualityInputs {
    /// The measurements of the published path's link. A source that measures the radio says the
    /// signal (NetworkManager's active access point, ConnMan's service `Strength`); where it does
    /// not, the kernel's reading stands (`/proc/net/wireless`, the Ethernet speed from sysfs).
    ///
    /// ```swift
    /// LinkQualityInputs.ofPath(published, networkManager: snapshot, connman: nil, kernel: { .none })
    /// ```
    /// `kernel` is asked only where it is needed: a source's signal makes the kernel's Wi-Fi
    /// figure moot, and reading it would cost system calls on every signal.
    public static func ofPath(_ published: PublishedReachability, networkManager: NetworkManagerSnapshot?,
                              connman: ConnManSnapshot?, modems: ModemSignals? = nil,
                              kernel: () -> LinkQualityInputs) -> LinkQualityInputs {
        guard published.reachable, !published.interface.isEmpty else { return .none }
        let sourceSignal: (UInt8, SignalSource)? = switch published.backend {
        case .networkmanager?:
            // A Wi-Fi device's access point; a modem's signal is ModemManager's, which runs it.
            networkManager?.device(kernelName: published.interface).flatMap { device in
                device.signalStrength.map { ($0, .networkManager) }
                    ?? device.modemPath.flatMap { modems?.percentByModem[$0] }.map { ($0, .modemManager) }
            }
        case .connman?:
            connman?.service(interface: published.interface)?.strength.map { ($0, .connman) }
        default:
            nil
        }
        guard let (strength, source) = sourceSignal else { return kernel() }
        return LinkQualityInputs(signalPercent: strength, signalSource: source)
    }
}
