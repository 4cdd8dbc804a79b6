import PropertyBased
import ReachabilityCore
import Testing

/// Laws that hold for every flag set, checked over generated subsets of the nine flags
/// (and, for the text form, over arbitrary 32-bit values).
@Suite("Properties over flag sets")
struct PropertyTests {
    static let knownFlags = Gen.optionSet(of: ReachabilityFlags.allKnown)

    @Test func neverReachableWithoutTheReachableFlag() async {
        await propertyCheck(count: 512, input: Self.knownFlags) { flags in
            #expect(!NetworkReachabilityStatus(flags: flags.subtracting(.reachable)).isReachable)
        }
    }

    @Test func flagsNeverYieldUnknown() async {
        await propertyCheck(count: 512, input: Self.knownFlags) { flags in
            #expect(NetworkReachabilityStatus(flags: flags) != .unknown)
        }
    }

    @Test func isWWANChangesOnlyTheMedium() async {
        await propertyCheck(count: 512, input: Self.knownFlags) { flags in
            let cellular = NetworkReachabilityStatus(flags: flags.union(.isWWAN))
            let other = NetworkReachabilityStatus(flags: flags.subtracting(.isWWAN))
            #expect(cellular.isReachable == other.isReachable)
            if cellular.isReachable {
                #expect(cellular == .reachableViaWWAN)
                #expect(other == .reachableViaWiFi)
            }
        }
    }

    @Test func reachableWithoutConnectionRequiredIsAlwaysReachable() async {
        await propertyCheck(count: 512, input: Self.knownFlags) { flags in
            let plain = flags.union(.reachable).subtracting(.connectionRequired)
            #expect(NetworkReachabilityStatus(flags: plain).isReachable)
        }
    }

    @Test func descriptionRoundTripsForKnownFlags() async {
        await propertyCheck(count: 512, input: Self.knownFlags) { flags in
            #expect(ReachabilityFlags(description: flags.description) == flags)
        }
    }

    @Test func descriptionRoundTripsForAnyBits() async {
        await propertyCheck(count: 512, input: Gen<ReachabilityFlags>.optionSet) { flags in
            #expect(ReachabilityFlags(description: flags.description) == flags)
        }
    }

    @Test func statusPropertiesAreConsistent() async {
        await propertyCheck(count: 512, input: Self.knownFlags) { flags in
            let status = NetworkReachabilityStatus(flags: flags)
            #expect(status.isReachable == (status.isReachableViaWWAN || status.isReachableViaWiFi))
            #expect(!(status.isReachableViaWWAN && status.isReachableViaWiFi))
            #expect(status.isReachable == (status.rawValue > 0))

            let published = PublishedReachability(
                status: status, flags: flags, interfaceType: .other, interface: "", metered: false,
                connectivity: .unknown, backend: .netlink)
            #expect(published.reachable == status.isReachable)
            #expect(published.reachableViaWWAN == (status == .reachableViaWWAN))
            #expect(published.reachableViaWiFi == (status == .reachableViaWiFi))
            #expect(published.statusString == status.string)
        }
    }

    static let published = zip(
        Self.knownFlags, Gen<InterfaceType>.case, Gen.bool, Gen.bool, Gen<Connectivity>.case,
        Gen<Backend>.case.optional
    ).map { flags, interfaceType, wlan1, metered, connectivity, backend in
        PublishedReachability(
            status: NetworkReachabilityStatus(flags: flags), flags: flags, interfaceType: interfaceType,
            interface: wlan1 ? "wlan1" : "wlan0", metered: metered, connectivity: connectivity, backend: backend)
    }

    @Test func changesAreListedExactlyWhenValuesDiffer() async {
        await propertyCheck(count: 512, input: Self.published, Self.published) { old, new in
            let changed = new.changedProperties(from: old)
            #expect(changed.isEmpty == (old == new))
            #expect(new.signalDue(from: old) == (changed.contains("Status") || changed.contains("Flags")))
            // Fixed order: the listed names appear in the contract's order.
            #expect(changed == PublishedReachability.propertyNames.filter(changed.contains))
        }
    }
}
