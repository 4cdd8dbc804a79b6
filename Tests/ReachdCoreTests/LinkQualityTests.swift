import ReachdCore
import Testing

/// `LinkQuality` as docs/mapping.md's "Link quality" table says: Wi-Fi and cellular graded on the
/// signal with a band around each threshold, Ethernet on its speed, everything else unknown.
@Suite("Link quality from the link's measurements")
struct LinkQualityTests {
    @Test(arguments: [
        (100, LinkQuality.good), (55, .good), (54, .moderate), (30, .moderate), (29, .minimal), (0, .minimal),
    ])
    func aFreshWiFiSignalIsGradedAtTheThresholds(percent: Int, expected: LinkQuality) {
        let inputs = LinkQualityInputs(signalPercent: UInt8(percent), signalSource: .networkManager)
        #expect(inputs.graded(for: .wifi, previous: .unknown) == expected)
        #expect(inputs.graded(for: .wwan, previous: .unknown) == expected, "cellular uses the same scale")
    }

    /// A signal within 5 points of a threshold keeps the grade it had: ordinary fading costs no change.
    @Test(arguments: [
        // (previous, percent, expected)
        (LinkQuality.good, 50, LinkQuality.good), (.good, 49, .moderate),
        (.moderate, 59, .moderate), (.moderate, 60, .good),
        (.moderate, 25, .moderate), (.moderate, 24, .minimal),
        (.minimal, 34, .minimal), (.minimal, 35, .moderate),
        (.minimal, 80, .good), (.good, 10, .minimal),
    ])
    func aSignalMovesGradeOnlyPastTheBand(previous: LinkQuality, percent: Int, expected: LinkQuality) {
        let inputs = LinkQualityInputs(signalPercent: UInt8(percent), signalSource: .connman)
        #expect(inputs.graded(for: .wifi, previous: previous) == expected)
    }

    @Test(arguments: [
        (UInt32(10_000), LinkQuality.good), (1_000, .good), (100, .good), (99, .moderate), (10, .moderate), (9, .minimal),
    ])
    func ethernetIsGradedOnItsSpeed(megabits: UInt32, expected: LinkQuality) {
        let inputs = LinkQualityInputs(ethernetSpeedMegabits: megabits)
        #expect(inputs.graded(for: .ethernet, previous: .unknown) == expected)
    }

    @Test func aLinkWithoutItsMeasurementOrWithoutOneAtAllIsUnknown() {
        #expect(LinkQualityInputs(ethernetSpeedMegabits: 1_000).graded(for: .wifi, previous: .good) == .unknown)
        #expect(LinkQualityInputs(signalPercent: 90).graded(for: .ethernet, previous: .good) == .unknown)
        for type in [InterfaceType.vpn, .bluetooth, .other, .none] {
            let everything = LinkQualityInputs(signalPercent: 90, signalSource: .kernel, ethernetSpeedMegabits: 1_000)
            #expect(everything.graded(for: type, previous: .good) == .unknown, "\(type)")
        }
    }

    @Test func aSignalOverAHundredIsAHundred() {
        #expect(LinkQualityInputs(signalPercent: 250).signalPercent == 100)
        #expect(LinkQualityInputs(signalPercent: nil, signalSource: .kernel).signalSource == nil)
    }

    @Test func theKernelsWirelessStatisticsAreScaledToPercent() {
        let text = """
            Inter-| sta-|   Quality        |   Discarded packets               | Missed | WE
             face | tus | link level noise |  nwid  crypt   frag  retry   misc | beacon | 22
            wlan0: 0000   54.  -56.  -256        0      0      0      0     12        0
              wlp3s0: 0000   70.  -30.  -256        0      0      0      0      0        0
            wlan1: 0000   99.  -10.  -256        0      0      0      0      0        0
            bad: 0000   nan.  -10.  -256
            """
        let statistics = WirelessStatistics(text: text)
        #expect(statistics.signalPercent(of: "wlan0") == 77)
        #expect(statistics.signalPercent(of: "wlp3s0") == 100)
        #expect(statistics.signalPercent(of: "wlan1") == 100, "a driver past 70 is capped")
        #expect(statistics.signalPercent(of: "bad") == nil)
        #expect(statistics.signalPercent(of: "eth0") == nil)
        #expect(WirelessStatistics(text: "").linkQuality.isEmpty)
    }

    @Test func theSourcesSignalWinsOverTheKernelsAndOnlyForThePathsLink() {
        var published = PublishedReachability(status: .reachableViaWiFi, flags: .reachable, interfaceType: .wifi,
                                              interface: "wlan0", metered: false, connectivity: .full, backend: .connman)
        let connman = ConnManSnapshot(state: "online", services: [
            ConnManService(path: "/net/connman/service/wifi_1", type: "wifi", state: "online", interface: "wlan0", strength: 42),
            ConnManService(path: "/net/connman/service/wifi_2", type: "wifi", state: "idle", interface: "wlan1", strength: 99),
        ])
        let kernel = LinkQualityInputs(signalPercent: 90, signalSource: .kernel)
        let inputs = LinkQualityInputs.ofPath(published, networkManager: nil, connman: connman, kernel: { kernel })
        #expect(inputs.signalPercent == 42)
        #expect(inputs.signalSource == .connman)

        published.interface = "wlan9"
        let kernelOnly = LinkQualityInputs.ofPath(published, networkManager: nil, connman: connman, kernel: { kernel })
        #expect(kernelOnly == kernel, "no ConnMan service on the path's link: the kernel's reading stands")

        published.status = .notReachable
        #expect(LinkQualityInputs.ofPath(published, networkManager: nil, connman: connman, kernel: { kernel }) == .none)
    }

    @Test func networkManagersAccessPointStrengthIsTheWiFiSignal() {
        let published = PublishedReachability(status: .reachableViaWiFi, flags: .reachable, interfaceType: .wifi,
                                              interface: "wlan0", metered: false, connectivity: .full, backend: .networkmanager)
        let snapshot = NetworkManagerSnapshot(state: .connectedGlobal, devices: [
            NetworkManagerDevice(type: .wifi, interface: "wlan0", managed: true, state: .activated, signalStrength: 23),
        ])
        let inputs = LinkQualityInputs.ofPath(published, networkManager: snapshot, connman: nil, kernel: { .none })
        #expect(inputs == LinkQualityInputs(signalPercent: 23, signalSource: .networkManager))
        #expect(inputs.graded(for: .wifi, previous: .unknown) == .minimal)
    }
}
