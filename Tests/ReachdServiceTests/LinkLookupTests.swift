import Glibc
import ReachdCore
import Testing
@testable import ReachdEngine

/// The link kind comes from one `RTM_GETLINK` per link, taken apart without trusting its lengths;
/// the bytes are spelled out as the kernel lays them out (rtnetlink(7); host byte order).
@Suite("Link lookups: the kernel's link kind")
struct LinkLookupTests {
    // The numbers from <linux/rtnetlink.h> and <linux/if_link.h>, written out.
    static let getLink: UInt16 = 18       // RTM_GETLINK
    static let newLink: UInt16 = 16       // RTM_NEWLINK
    static let error: UInt16 = 2          // NLMSG_ERROR
    static let linkInfo: UInt16 = 18      // IFLA_LINKINFO
    static let infoKind: UInt16 = 1       // IFLA_INFO_KIND
    static let infoData: UInt16 = 2       // IFLA_INFO_DATA
    static let extMask: UInt16 = 29       // IFLA_EXT_MASK
    static let ifname: UInt16 = 3         // IFLA_IFNAME

    static func message(type: UInt16, body: [UInt8]) -> NetlinkMessage {
        NetlinkMessage(type: type, sequence: 7, payload: ArraySlice(body))
    }

    /// struct ifinfomsg: family, pad, type (ARPHRD), index, flags, change.
    static let ifinfomsg: [UInt8] = {
        var bytes: [UInt8] = [0, 0]
        bytes.appendRaw(UInt16(1))
        bytes.appendRaw(Int32(4))
        bytes.appendRaw(UInt32(0x1003))
        bytes.appendRaw(UInt32(0))
        return bytes
    }()

    @Test func theRequestAsksForOneLinkWithoutStatistics() {
        let packet = LinkLookup.request(index: 4, sequence: 9)
        #expect(packet.count == 16 + 16 + 8)
        #expect(readUInt32(packet[...], at: 0) == UInt32(packet.count))
        #expect(readUInt16(packet[...], at: 4) == Self.getLink)
        #expect(readUInt16(packet[...], at: 6) == 1)  // NLM_F_REQUEST, not a dump
        #expect(readUInt32(packet[...], at: 8) == 9)
        #expect(readUInt32(packet[...], at: 20) == 4)  // ifi_index
        #expect(readUInt16(packet[...], at: 34) == Self.extMask)
        #expect(readUInt32(packet[...], at: 36) == 1 << 3)  // RTEXT_FILTER_SKIP_STATS
    }

    @Test func theKindIsReadFromTheNestedLinkInfo() {
        let info = rtattr(Self.infoKind, Array("veth\0".utf8)) + rtattr(Self.infoData, [1, 2, 3, 4])
        let body = Self.ifinfomsg + rtattr(Self.ifname, Array("vh\0".utf8)) + rtattr(Self.linkInfo, info)
        #expect(LinkLookup.decode(Self.message(type: Self.newLink, body: body)) == .link(kind: .veth))
    }

    @Test func hardwareHasNoKind() {
        let body = Self.ifinfomsg + rtattr(Self.ifname, Array("eth0\0".utf8))
        #expect(LinkLookup.decode(Self.message(type: Self.newLink, body: body)) == .link(kind: nil))
    }

    @Test func aLinkThatIsGoneIsRefused() {
        var body: [UInt8] = []
        body.appendRaw(Int32(-ENODEV))
        #expect(LinkLookup.decode(Self.message(type: Self.error, body: body)) == .refused(ENODEV))
    }

    @Test func aTruncatedReplyIsNoAnswer() {
        #expect(LinkLookup.decode(Self.message(type: Self.newLink, body: [0, 0, 1])) == .noAnswer)
    }

    @Test func aTruncatedLinkInfoLosesOnlyTheKind() {
        let body = Self.ifinfomsg + [12, 0, UInt8(Self.linkInfo), 0, 9, 0, 1, 0, 0x76, 0x65, 0, 0]
        #expect(LinkLookup.decode(Self.message(type: Self.newLink, body: body)) == .link(kind: nil))
    }

    /// The real kernel, in whatever namespace the tests run: every namespace has `lo`.
    @Test func loopbackIsClassifiedFromTheRealKernel() throws {
        let index = if_nametoindex("lo")
        try #require(index != 0)
        let lookup = try LinkLookup()
        #expect(lookup.link(index: index) == .link(kind: nil))
        let link = try #require(LinkSnapshots(lookup: lookup).link(index: index))
        #expect(link.facts.isLoopback)
        #expect(link.linkClass == .loopback)
        #expect(link.linkClass(carriesPath: true) == .loopback)
    }

    @Test func aLinkThatDoesNotExistIsRefusedByTheRealKernel() throws {
        #expect(try LinkLookup().link(index: 0x7fff_fff0) == .refused(ENODEV))
    }
}
