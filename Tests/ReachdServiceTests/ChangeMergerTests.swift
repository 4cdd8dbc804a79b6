import Logging
import ReachdCore
@testable import ReachdEngine
import Synchronization
import Testing

/// The one merge point between the sources and what reachd publishes: a value
/// is announced only when it differs from the last computed one, after the
/// settle time; a kernel view that could not be read is never published.
@Suite("The change merger")
struct ChangeMergerTests {
    static let wifi = PublishedReachability(networkManager: NetworkManagerSnapshot(
        state: .connectedGlobal, connectivity: .full, primaryConnectionType: "802-11-wireless",
        primaryDevices: [NetworkDevice(type: .wifi, interface: "wlan0")], primaryRouteHasGateway: true))
    static let offline = PublishedReachability(networkManager: NetworkManagerSnapshot(
        state: .disconnected, connectivity: .none))
    static let ethernetPath = KernelPath(
        verdict: .ok, route: RouteLookupResult(type: .unicast, hasGateway: true, outgoingInterface: "eth0",
                                               medium: .ethernet, linkIsUp: true, isDefaultRoute: true),
        table: 254, gateway: "192.0.2.1")
    static let kernelEthernet = PublishedReachability(kernelPath4: ethernetPath, kernelPath6: .none)

    /// What the merger did, in order.
    final class Record: Sendable {
        private let entries = Mutex<[String]>([])
        func add(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    /// A kernel whose route lookups fail while `failing` is set; its IPv4 path is `path`.
    final class Kernel: Sendable {
        let failing = Mutex(false)
        let lookups = Mutex(0)
        let path = Mutex(ChangeMergerTests.ethernetPath)
        func paths() throws(RouteLookupFailure) -> (ipv4: KernelPath, ipv6: KernelPath) {
            lookups.withLock { $0 += 1 }
            if failing.withLock({ $0 }) { throw RouteLookupFailure(reason: "no answer to the route lookup: timed out") }
            return (path.withLock { $0 }, .none)
        }
    }

    /// Without overrides unless asked: these tests are about merging and settling, not the cross-check.
    static func merger(settle: Duration = .zero, crossCheck: ChangeMerger.CrossCheck = .init(overrides: false, delay: .seconds(1)),
                       kernel: Kernel = Kernel(), record: Record) -> ChangeMerger {
        ChangeMerger(
            settle: settle, crossCheck: crossCheck, logger: Logger(label: "test"),
            kernelPaths: { () throws(RouteLookupFailure) in
                let paths = try kernel.paths()
                return PathFactsReader.Reading(ipv4: paths.ipv4, ipv6: paths.ipv6, facts: .none)
            },
            start: { record.add("start \($0.statusString) \($0.interface)") },
            announce: { record.add("announce \($0.statusString) \($0.interface)") },
            sourcesChanged: { record.add("sources changed") })
    }

    @Test func theFirstValueIsSetBeforeTheNameIsClaimedNotAnnounced() async {
        let record = Record()
        let merger = Self.merger(record: record)
        await merger.receive(.kernelChanged)  // before NetworkManager's first word: nothing to compute yet
        await merger.receive(.networkManager(Self.snapshotWiFi))
        #expect(await merger.firstValue().withoutDetails == Self.wifi)
        #expect(record.all == ["start Reachable via WiFi wlan0"])
    }

    @Test func aSourceEventThatChangesNothingAnnouncesNothing() async {
        let record = Record()
        let merger = Self.merger(record: record)
        await merger.receive(.networkManager(Self.snapshotWiFi))
        await merger.receive(.kernelChanged)
        await merger.receive(.networkManager(Self.snapshotWiFi))
        #expect(record.all == ["start Reachable via WiFi wlan0", "sources changed", "sources changed"])
    }

    @Test func kernelChatterDoesNotPostponeASettlingChange() async throws {
        let record = Record()
        let merger = Self.merger(settle: .milliseconds(300), record: record)
        await merger.receive(.networkManager(Self.snapshotWiFi))
        let changed = ContinuousClock.now
        await merger.receive(.networkManager(Self.snapshotOffline))
        // The kernel keeps talking every 50 ms until the change is announced, and for twice the
        // settle time after. A merger that restarted the settle timer on each kernel event would
        // never announce while it talks: the deadline only ends the test, it is not a bound.
        func announced() -> [String] { record.all.filter { $0.hasPrefix("announce") } }
        var quietAfter: ContinuousClock.Instant?
        while ContinuousClock.now < (quietAfter ?? changed + .seconds(30)) {
            await merger.receive(.kernelChanged)
            try await Task.sleep(for: .milliseconds(50))
            if quietAfter == nil, !announced().isEmpty { quietAfter = ContinuousClock.now + .milliseconds(600) }
        }
        #expect(announced() == ["announce Not Reachable "])
    }

    @Test func aFlapShorterThanTheSettleTimeIsNeverAnnounced() async throws {
        let record = Record()
        // The flap lasts one actor hop; the settle time is long next to that, so that a loaded
        // machine resuming this test late cannot let the settle timer in between.
        let settle = Duration.seconds(2)
        let merger = Self.merger(settle: settle, record: record)
        await merger.receive(.networkManager(Self.snapshotWiFi))
        await merger.receive(.networkManager(Self.snapshotOffline))
        await merger.receive(.networkManager(Self.snapshotWiFi))
        try await Task.sleep(for: settle * 2)
        // The timer fired with the value already published: the publisher compares and stays quiet.
        #expect(record.all.filter { $0.hasPrefix("announce") }.allSatisfy { $0 == "announce Reachable via WiFi wlan0" })
    }

    @Test func aRouteLookupThatFailsIsNeverPublishedAndIsRetriedUntilItAnswers() async throws {
        let record = Record()
        let kernel = Kernel()
        let merger = Self.merger(kernel: kernel, record: record)
        await merger.receive(.networkManager(nil))  // no NetworkManager: the kernel's view
        #expect(record.all == ["start Reachable via WiFi eth0"])

        kernel.failing.withLock { $0 = true }
        let before = kernel.lookups.withLock { $0 }
        await merger.receive(.kernelChanged)
        // Retried with backoff (100, 200 ms …): wait for two retries, however loaded the machine.
        let deadline = ContinuousClock.now + .seconds(30)
        while kernel.lookups.withLock({ $0 }) < before + 3, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(kernel.lookups.withLock { $0 } >= before + 3, "retried with backoff")
        #expect(record.all == ["start Reachable via WiFi eth0", "sources changed"], "nothing published for a failure")

        kernel.failing.withLock { $0 = false }
        await merger.receive(.networkManager(Self.snapshotOffline))
        #expect(record.all.last == "sources changed")
        #expect(record.all.contains("announce Not Reachable "))
    }

    @Test func theFirstValueWaitsForAKernelThatAnswers() async throws {
        let record = Record()
        let kernel = Kernel()
        kernel.failing.withLock { $0 = true }
        let merger = Self.merger(kernel: kernel, record: record)
        await merger.receive(.networkManager(nil))
        #expect(record.all.isEmpty, "no first value from a failed lookup")
        kernel.failing.withLock { $0 = false }
        #expect(await merger.firstValue().withoutDetails == Self.kernelEthernet, "the retry brings the first value")
    }

    static let snapshotWiFi = NetworkManagerSnapshot(
        state: .connectedGlobal, connectivity: .full, primaryConnectionType: "802-11-wireless",
        primaryDevices: [NetworkDevice(type: .wifi, interface: "wlan0")], primaryRouteHasGateway: true)
    static let snapshotOffline = NetworkManagerSnapshot(state: .disconnected, connectivity: .none)

    // MARK: The cross-check's timing (the table itself: ReachabilityDecisionTests)

    /// NetworkManager DISCONNECTED while the kernel routes over eth0, which it does not know.
    /// The override delay: long next to what a test does between two events (an actor hop, a
    /// 100 ms sleep), so that a loaded machine waking a test late cannot let the timer in first.
    static let delay = Duration.seconds(2)

    /// How long a test waits for what a timer of the merger's brings. The timer and the test
    /// share the test process's two concurrency threads with every other suite's tests, some of
    /// which block one of them while a bus daemon starts: beside a CPU hog a 20 ms sleep of the
    /// test was seen to end 5 s late, after a 10 s wait. The wait ends as soon as the event is
    /// there, so only a failure costs the whole minute.
    static let patience = Duration.seconds(60)

    @Test func anUpwardOverrideWaitsForTheDelayThenTakesEffectWithoutAnotherEvent() async throws {
        let record = Record()
        let merger = Self.merger(crossCheck: .init(overrides: true, delay: Self.delay), record: record)
        let started = ContinuousClock.now
        await merger.receive(.networkManager(Self.snapshotOffline))
        #expect(record.all == ["start Not Reachable "], "NetworkManager's word until the disagreement has held")
        let deadline = ContinuousClock.now + Self.patience
        while !record.all.contains("announce Reachable via WiFi eth0"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(record.all == ["start Not Reachable ", "announce Reachable via WiFi eth0"], "the override timer is an event of its own")
        #expect(ContinuousClock.now - started >= Self.delay)
        let value = await merger.firstValue()
        #expect(value.source == .netlinkOverride || value.source == .networkManager)
    }

    @Test func anOverrideEndsAtOnceWhenTheDisagreementStops() async throws {
        let record = Record()
        let merger = Self.merger(crossCheck: .init(overrides: true, delay: .milliseconds(50)), record: record)
        await merger.receive(.networkManager(Self.snapshotOffline))
        let deadline = ContinuousClock.now + Self.patience
        while !record.all.contains("announce Reachable via WiFi eth0"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        // NetworkManager now says CONNECTED_GLOBAL over Wi-Fi: no more disagreement, its word at once.
        await merger.receive(.networkManager(Self.snapshotWiFi))
        #expect(record.all.last == "sources changed")
        #expect(record.all.dropLast().last == "announce Reachable via WiFi eth0",
                "NetworkManager's reachability, refined with the kernel's interface (R6): \(record.all)")
    }

    @Test func aDisagreementShorterThanTheDelayIsNeverPublished() async throws {
        let record = Record()
        let merger = Self.merger(crossCheck: .init(overrides: true, delay: Self.delay), record: record)
        await merger.receive(.networkManager(Self.snapshotOffline))
        try await Task.sleep(for: .milliseconds(100))
        await merger.receive(.networkManager(Self.snapshotConnectingOverEth0))
        try await Task.sleep(for: Self.delay * 2)
        #expect(record.all == ["start Not Reachable ", "announce Not Reachable ", "sources changed"],
                "CONNECTING over NetworkManager's own eth0 (flags ConnectionRequired) ended the disagreement; the timer published nothing")
    }

    @Test func afterARestartTheKernelsAnswerStandsWithoutADebounce() async throws {
        let record = Record()
        let merger = Self.merger(crossCheck: .init(overrides: true, delay: Self.delay), record: record)
        await merger.receive(.networkManager(nil))  // NetworkManager away: the kernel's path
        var starting = Self.snapshotOffline
        starting.startup = true
        await merger.receive(.networkManager(starting))  // R1
        await merger.receive(.networkManager(Self.snapshotOffline))  // R8, held already: no flap
        #expect(record.all.allSatisfy { !$0.hasPrefix("announce Not") }, "\(record.all)")
    }

    /// The values the merger set and announced, in order.
    final class Values: Sendable {
        private let entries = Mutex<[PublishedReachability]>([])
        func add(_ value: PublishedReachability) { entries.withLock { $0.append(value) } }
        var all: [PublishedReachability] { entries.withLock { $0 } }
    }

    /// A kernel whose facts follow its path, as PathFactsReader's do: the path's gateway, IPv4,
    /// DNS and eth0 with an Internet path while there is one.
    static func mergerWithFacts(kernel: Kernel, delay: Duration, values: Values) -> ChangeMerger {
        ChangeMerger(
            settle: .zero, crossCheck: .init(overrides: true, delay: delay), logger: Logger(label: "test"),
            kernelPaths: { () throws(RouteLookupFailure) in
                let paths = try kernel.paths()
                let usable = paths.ipv4.isUsable
                return PathFactsReader.Reading(ipv4: paths.ipv4, ipv6: paths.ipv6, facts: PathFacts(
                    supportsIPv4: usable, supportsDNS: usable, hasLink: true,
                    gateways: paths.ipv4.isUsable ? paths.ipv4.gateway.map { [$0] } ?? [] : [],
                    availableInterfaces: [.init(name: "eth0", type: .ethernet, hasInternetPath: usable)]))
            },
            start: { values.add($0) },
            announce: { values.add($0) },
            sourcesChanged: {})
    }

    /// Status, Level and Gateways as one published set shows them.
    static func triple(_ value: PublishedReachability) -> String {
        "\(value.statusString) \(value.level.rawValue) \(value.path.gateways)"
    }

    @Test func whileTheKernelsLossOfThePathWaitsOutTheDelayTheLastSnapshotStandsWhole() async throws {
        let kernel = Kernel()
        let values = Values()
        let merger = Self.mergerWithFacts(kernel: kernel, delay: Self.delay, values: values)
        await merger.receive(.networkManager(Self.snapshotWiFi))
        #expect(values.all.map(Self.triple) == ["Reachable via WiFi dns [\"192.0.2.1\"]"])
        // The default route goes; NetworkManager still says CONNECTED_GLOBAL (R4 pending).
        kernel.path.withLock { $0 = .none }
        let lost = ContinuousClock.now
        await merger.receive(.kernelChanged)
        #expect(values.all.count == 1,
                "nothing published while R4 waits: not Reachable beside no gateway and Level routable")
        let deadline = ContinuousClock.now + Self.patience
        while values.all.count < 2, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(ContinuousClock.now - lost >= Self.delay)
        #expect(values.all.map(Self.triple) == ["Reachable via WiFi dns [\"192.0.2.1\"]", "Not Reachable link []"],
                "one change, from one decision (R4)")
        // Every published set agrees with itself: reachable only with a path's facts.
        for value in values.all where value.status.isReachable {
            #expect(value.path.supportsIPv4 && !value.path.gateways.isEmpty)
        }
    }

    @Test func aLossOfThePathBeforeTheFirstValueIsPublishedAtOnceNotAfterTheDelay() async {
        let kernel = Kernel()
        kernel.path.withLock { $0 = .none }
        let values = Values()
        let merger = Self.mergerWithFacts(kernel: kernel, delay: Self.delay, values: values)
        await merger.receive(.networkManager(Self.snapshotWiFi))
        let first = await merger.firstValue()
        #expect(Self.triple(first) == "Not Reachable link []", "NetworkManager's CONNECTED_GLOBAL beside no path is not published")
        #expect(first.source == .netlinkOverride)
    }

    @Test func anIPv4LinkLocalOnlyPathIsNotListedAsInternet() async {
        let kernel = Kernel()
        kernel.path.withLock {
            $0 = KernelPath(verdict: .ok, route: RouteLookupResult(type: .unicast, hasGateway: false, outgoingInterface: "eth0",
                                                                   medium: .ethernet, linkIsUp: true, isDefaultRoute: true),
                            table: 254, source: "169.254.12.34")
        }
        let values = Values()
        let merger = Self.mergerWithFacts(kernel: kernel, delay: Self.delay, values: values)
        await merger.receive(.networkManager(nil))
        let first = await merger.firstValue()
        #expect(first.path.availableInterfaces == [PathFacts.AvailableInterface(name: "eth0", type: .ethernet, hasInternetPath: false)])
        #expect(!first.path.supportsIPv4 && !first.path.supportsDNS)
    }

    static let snapshotConnectingOverEth0 = NetworkManagerSnapshot(
        state: .connecting, connectivity: .none,
        devices: [NetworkManagerDevice(type: .ethernet, interface: "eth0", managed: true, state: .ipConfig)])
}

extension PublishedReachability {
    /// The value without `Details`, which these tests do not spell out.
    var withoutDetails: PublishedReachability {
        var copy = self
        copy.details = ReachabilityDetails()
        return copy
    }
}
