import PropertyBased
import ReachdCore
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
}
