import PropertyBased
import ReachdContract
import ReachdCore
import Testing

/// Change detection through the contract's property table, over generated values.
@Suite("Properties over published values")
struct ChangeDetectionPropertyTests {
    static let knownFlags = Gen.optionSet(of: ReachabilityFlags.allKnown)

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
