import ReachdContract
import ReachdCore
import Testing

/// What the service emits: one PropertiesChanged listing the changed properties, and
/// ReachabilityChanged only when (status, flags) changed.
@Suite("Change detection")
struct ChangeDetectionTests {
    static let wifi = PublishedReachability(
        status: .reachableViaWiFi, flags: [.reachable], interfaceType: .wifi, interface: "wlan0",
        metered: false, connectivity: .full, backend: .networkmanager)

    @Test func noChangeListsNothingAndSignalsNothing() {
        #expect(Self.wifi.changedProperties(from: Self.wifi) == [])
        #expect(!Self.wifi.signalDue(from: Self.wifi))
    }

    @Test func onlyFlagsChange() {
        var direct = Self.wifi
        direct.flags = [.reachable, .isDirect]
        #expect(direct.changedProperties(from: Self.wifi) == ["Flags"])
        #expect(direct.signalDue(from: Self.wifi))
    }

    @Test func mediumChangeFromWiFiToWWAN() {
        let wwan = PublishedReachability(
            status: .reachableViaWWAN, flags: [.reachable, .isWWAN], interfaceType: .wwan, interface: "wwan0",
            metered: true, connectivity: .full, backend: .networkmanager)
        #expect(wwan.changedProperties(from: Self.wifi) == [
            "Status", "Flags", "ReachableViaWWAN", "ReachableViaWiFi", "StatusString", "InterfaceType",
            "Interface", "Metered",
        ])
        #expect(wwan.signalDue(from: Self.wifi))
    }

    @Test func backendChangeAloneIsNoReachabilityChange() {
        let netlink = PublishedReachability(
            status: .reachableViaWiFi, flags: [.reachable], interfaceType: .wifi, interface: "wlan0",
            metered: false, connectivity: .unknown, backend: .netlink)
        #expect(netlink.changedProperties(from: Self.wifi) == ["Connectivity", "Backend", "Source"])
        #expect(!netlink.signalDue(from: Self.wifi))

        var sameConnectivity = Self.wifi
        sameConnectivity.backend = .netlink
        #expect(sameConnectivity.changedProperties(from: Self.wifi) == ["Backend"], "Source is set where the value is made")
    }

    @Test func interfaceRenameIsNoReachabilityChange() {
        var renamed = Self.wifi
        renamed.interface = "wlan1"
        #expect(renamed.changedProperties(from: Self.wifi) == ["Interface"])
        #expect(!renamed.signalDue(from: Self.wifi))
    }

    @Test func firstSourceAfterUnknownChangesEverythingThatDiffers() {
        #expect(Self.wifi.changedProperties(from: .unknown) == [
            "Status", "Flags", "Reachable", "ReachableViaWiFi", "StatusString", "InterfaceType", "Interface",
            "Connectivity", "Backend", "Source", "UnsatisfiedReason", "Level",
        ])
        #expect(Self.wifi.signalDue(from: .unknown))
    }

    @Test func unknownPublishesTheContractsDefaults() {
        let unknown = PublishedReachability.unknown
        #expect(unknown.status.rawValue == -1)
        #expect(unknown.flags.rawValue == 0)
        #expect(unknown.interfaceType.rawValue == "none")
        #expect(unknown.interface == "")
        #expect(unknown.metered == false)
        #expect(unknown.connectivity.rawValue == "unknown")
        #expect(unknown.backendName == "")
        #expect(unknown.statusString == "Unknown")
        #expect(!unknown.reachable && !unknown.reachableViaWWAN && !unknown.reachableViaWiFi)
    }

    @Test func portalStartingBlocksTheStatus() {
        var portal = Self.wifi
        portal.status = .notReachable
        portal.flags = [.reachable, .connectionRequired, .interventionRequired]
        portal.connectivity = .portal
        #expect(portal.changedProperties(from: Self.wifi) == [
            "Status", "Flags", "Reachable", "ReachableViaWiFi", "StatusString", "Connectivity", "Level",
        ])
        #expect(portal.signalDue(from: Self.wifi))
    }

    // MARK: Host monitors

    static let hostWiFi = HostReport(flags: [.reachable], interface: "wlan0", interfaceType: .wifi)

    @Test func hostReportWithoutChange() {
        #expect(Self.hostWiFi.changedProperties(from: Self.hostWiFi) == [])
        #expect(!Self.hostWiFi.signalDue(from: Self.hostWiFi))
    }

    @Test func hostReportMediumChange() {
        let wwan = HostReport(flags: [.reachable, .isWWAN], interface: "wwan0", interfaceType: .wwan)
        #expect(wwan.changedProperties(from: Self.hostWiFi) == [
            "Status", "Flags", "ReachableViaWWAN", "ReachableViaWiFi", "StatusString", "Interface", "InterfaceType",
        ])
        #expect(wwan.signalDue(from: Self.hostWiFi))
    }

    @Test func hostReportOnlyFlagsChange() {
        let direct = HostReport(flags: [.reachable, .isDirect], interface: "wlan0", interfaceType: .wifi)
        #expect(direct.changedProperties(from: Self.hostWiFi) == ["Flags"])
        #expect(direct.signalDue(from: Self.hostWiFi))
    }

    @Test func hostReportBecomesUnreachable() {
        #expect(HostReport.notReachable.changedProperties(from: Self.hostWiFi) == [
            "Status", "Flags", "Reachable", "ReachableViaWiFi", "StatusString", "Interface", "InterfaceType",
        ])
    }
}
