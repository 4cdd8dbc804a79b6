import ReachdCore
import Testing

@Suite("ReachabilityFlags: Apple's bits and their text form")
struct ReachabilityFlagsTests {
    @Test("each flag has Apple's SCNetworkReachabilityFlags value", arguments: [
        (ReachabilityFlags.transientConnection, UInt32(1) << 0),
        (.reachable, 1 << 1),
        (.connectionRequired, 1 << 2),
        (.connectionOnTraffic, 1 << 3),
        (.interventionRequired, 1 << 4),
        (.connectionOnDemand, 1 << 5),
        (.isLocalAddress, 1 << 16),
        (.isDirect, 1 << 17),
        (.isWWAN, 1 << 18),
    ] as [(ReachabilityFlags, UInt32)])
    func flagsHaveAppleValues(flag: ReachabilityFlags, rawValue: UInt32) {
        #expect(flag.rawValue == rawValue)
    }

    @Test func allKnownIsExactlyTheNineFlags() {
        #expect(ReachabilityFlags.allKnown.rawValue == 0x0007_003F)
    }

    @Test("description lists Apple's names in bit order", arguments: [
        (ReachabilityFlags(), "0"),
        ([.reachable], "Reachable"),
        ([.isDirect, .reachable], "Reachable|IsDirect"),
        ([.isWWAN, .transientConnection], "TransientConnection|IsWWAN"),
        ([.reachable, .connectionRequired, .interventionRequired],
         "Reachable|ConnectionRequired|InterventionRequired"),
        ([.reachable, .isLocalAddress, .isDirect], "Reachable|IsLocalAddress|IsDirect"),
        (.allKnown,
         "TransientConnection|Reachable|ConnectionRequired|ConnectionOnTraffic|InterventionRequired|"
            + "ConnectionOnDemand|IsLocalAddress|IsDirect|IsWWAN"),
    ] as [(ReachabilityFlags, String)])
    func descriptionListsAppleNamesInBitOrder(flags: ReachabilityFlags, text: String) {
        #expect(flags.description == text)
    }

    @Test func unknownBitsAppearAsHexadecimal() {
        #expect(ReachabilityFlags(rawValue: 0x40).description == "0x40")
        #expect(ReachabilityFlags(rawValue: 0x8000_0002).description == "Reachable|0x80000000")
        #expect(ReachabilityFlags(rawValue: 0x0008_0040 | 0x2).description == "Reachable|0x80040")
    }

    @Test func namesLeaveOutUnknownBits() {
        #expect(ReachabilityFlags([.isWWAN, .reachable]).names == ["Reachable", "IsWWAN"])
        #expect(ReachabilityFlags(rawValue: 0x8000_0000).names == [])
    }

    @Test("parsing accepts what description prints, \"\", and spaces", arguments: [
        ("", ReachabilityFlags()),
        ("   ", []),
        ("0", []),
        (" 0 ", []),
        ("Reachable", [.reachable]),
        ("Reachable|IsDirect", [.reachable, .isDirect]),
        ("  Reachable | IsWWAN  ", [.reachable, .isWWAN]),
        ("IsDirect|Reachable", [.reachable, .isDirect]),
        ("Reachable|0x80000000", ReachabilityFlags(rawValue: 0x8000_0002)),
        ("0x40", ReachabilityFlags(rawValue: 0x40)),
    ] as [(String, ReachabilityFlags)])
    func parsingAcceptsDescriptions(text: String, flags: ReachabilityFlags) {
        #expect(ReachabilityFlags(description: text) == flags)
    }

    @Test("parsing rejects anything else", arguments: [
        "Reachabel", "reachable", "REACHABLE", "Reachable||IsDirect", "|", "Reachable|", "Reachable|0",
        "0x", "0xZZ", "0x+1", "0x100000000", "2", "kSCNetworkReachabilityFlagsReachable",
    ] as [String])
    func parsingRejectsUnknownTokens(text: String) {
        #expect(ReachabilityFlags(description: text) == nil)
    }

    @Test func everySubsetOfTheNineFlagsRoundTrips() {
        for bits in 0..<(1 << 9) {
            // Spread 9 bits over Apple's two groups: bits 0-5 and 16-18.
            let raw = UInt32(bits & 0x3F) | (UInt32(bits >> 6) << 16)
            let flags = ReachabilityFlags(rawValue: raw)
            #expect(ReachabilityFlags(description: flags.description) == flags, "\(raw)")
        }
    }
}
