import Testing
@testable import ReachdEngine

/// The kernel's answers to a route lookup are taken apart without trusting
/// any length in them: every message and attribute is checked against the
/// datagram, so a truncated or malformed reply loses what is broken and
/// nothing is read past its end. The bytes are spelled out by hand, as the
/// kernel lays them out (rtnetlink(7); host byte order).
@Suite("Netlink messages: the kernel's route replies taken apart")
struct NetlinkMessageTests {
    // The numbers from <linux/rtnetlink.h> and <linux/netlink.h>, written
    // out so the test does not take them from the headers the code uses.
    static let newRoute: UInt16 = 24      // RTM_NEWROUTE
    static let done: UInt16 = 3           // NLMSG_DONE
    static let destination: UInt16 = 1    // RTA_DST
    static let oif: UInt16 = 4            // RTA_OIF
    static let gateway: UInt16 = 5        // RTA_GATEWAY
    static let priority: UInt16 = 6       // RTA_PRIORITY
    static let table: UInt16 = 15         // RTA_TABLE
    static let nestedFlag: UInt16 = 0x8000  // NLA_F_NESTED

    @Test func routeReplyGivesItsInterfaceGatewayTableAndMetric() {
        let datagram = message(type: Self.newRoute, sequence: 7, body: routeHeader(type: 1, table: 254) + [
            rtattr(Self.table, uint32(254)),
            rtattr(Self.destination, [192, 0, 2, 10]),
            rtattr(Self.oif, uint32(3)),
            rtattr(Self.gateway, [192, 0, 2, 1]),
            rtattr(Self.priority, uint32(100)),
        ].joined())
        let (messages, malformed) = NetlinkMessage.parse(datagram[...])
        #expect(!malformed)
        #expect(messages.count == 1)
        let reply = messages[0]
        #expect(reply.type == Self.newRoute)
        #expect(reply.sequence == 7)
        #expect(reply.payload.count == 12 + 5 * 8, "rtmsg and five 8-byte attributes")
        #expect(reply.payload[reply.payload.startIndex + 7] == 1, "rtm_type: unicast")
        let attributes = reply.attributes(after: 12)
        #expect(attributes[Self.oif].map { readUInt32($0, at: $0.startIndex) } == 3)
        #expect(attributes[Self.table].map { readUInt32($0, at: $0.startIndex) } == 254)
        #expect(attributes[Self.priority].map { readUInt32($0, at: $0.startIndex) } == 100)
        #expect(attributes[Self.gateway].map { Array($0) } == [192, 0, 2, 1])
        #expect(attributes[Self.destination].map { Array($0) } == [192, 0, 2, 10])
    }

    @Test func everyMessageOfADatagramIsReadAcrossAlignmentPadding() {
        // A 2-byte attribute leaves the first message 2 bytes short of
        // alignment: the next one starts at the 4-byte boundary after it.
        let first = message(type: Self.newRoute, sequence: 1, body: routeHeader(type: 1, table: 254) + rtattr(Self.oif, [9, 0]))
        let second = message(type: Self.done, sequence: 1, body: uint32(0))
        #expect(first.count % 4 == 0, "the helper pads, as the kernel does")
        let (messages, malformed) = NetlinkMessage.parse((first + second)[...])
        #expect(!malformed)
        #expect(messages.map(\.type) == [Self.newRoute, Self.done])
        #expect(messages[0].attributes(after: 12)[Self.oif].map { Array($0) } == [9, 0])
    }

    @Test func aMessageLongerThanTheDatagramIsDroppedAndReportedMalformed() {
        let whole = message(type: Self.newRoute, sequence: 2, body: routeHeader(type: 1, table: 254) + rtattr(Self.oif, uint32(3)))
        let complete = message(type: Self.newRoute, sequence: 1, body: routeHeader(type: 1, table: 254))
        let (messages, malformed) = NetlinkMessage.parse((complete + whole.dropLast(6))[...])
        #expect(malformed)
        #expect(messages.map(\.sequence) == [1], "the complete message before it is kept")
    }

    @Test func aLengthShorterThanTheHeaderStopsParsing() {
        var broken = message(type: Self.newRoute, sequence: 3, body: routeHeader(type: 1, table: 254))
        broken.replaceSubrange(0..<4, with: uint32(8))
        let after = message(type: Self.done, sequence: 3, body: uint32(0))
        let (messages, malformed) = NetlinkMessage.parse((broken + after)[...])
        #expect(malformed)
        #expect(messages.isEmpty, "nothing after a bad length can be trusted")
    }

    @Test func bytesTooFewForAHeaderAfterTheLastMessageAreReportedMalformed() {
        let complete = message(type: Self.done, sequence: 4, body: uint32(0))
        let (messages, malformed) = NetlinkMessage.parse((complete + [1, 2, 3, 4, 5, 6, 7, 8])[...])
        #expect(malformed)
        #expect(messages.map(\.type) == [Self.done])
    }

    @Test func anEmptyDatagramHasNoMessages() {
        let (messages, malformed) = NetlinkMessage.parse([][...])
        #expect(messages.isEmpty)
        #expect(!malformed)
    }

    @Test func aDatagramInTheMiddleOfABufferIsReadFromItsOwnStart() {
        // recv fills a reused buffer; the parser gets a slice of it.
        let datagram = message(type: Self.newRoute, sequence: 5, body: routeHeader(type: 2, table: 255) + rtattr(Self.oif, uint32(1)))
        let buffer = [UInt8](repeating: 0xee, count: 20) + datagram + [UInt8](repeating: 0xee, count: 20)
        let (messages, malformed) = NetlinkMessage.parse(buffer[20..<(20 + datagram.count)])
        #expect(!malformed)
        #expect(messages.map(\.sequence) == [5])
        #expect(messages[0].attributes(after: 12)[Self.oif].map { readUInt32($0, at: $0.startIndex) } == 1)
    }

    @Test func anAttributeRunningPastTheMessageEndsTheAttributesButKeepsThoseBefore() {
        var overlong = rtattr(Self.gateway, [192, 0, 2, 1])
        overlong.replaceSubrange(0..<2, with: uint16(200))
        let reply = parsedRoute(attributes: rtattr(Self.oif, uint32(4)) + overlong + rtattr(Self.table, uint32(254)))
        let attributes = reply.attributes(after: 12)
        #expect(attributes[Self.oif].map { readUInt32($0, at: $0.startIndex) } == 4)
        #expect(attributes[Self.gateway] == nil)
        #expect(attributes[Self.table] == nil, "nothing after a bad length can be trusted")
    }

    @Test func anAttributeShorterThanItsHeaderEndsTheAttributes() {
        var short = rtattr(Self.gateway, [192, 0, 2, 1])
        short.replaceSubrange(0..<2, with: uint16(2))
        let attributes = parsedRoute(attributes: short + rtattr(Self.oif, uint32(4))).attributes(after: 12)
        #expect(attributes.isEmpty)
    }

    @Test func theFirstAttributeOfATypeWinsAndFlagBitsAreIgnored() {
        let nested = Self.nestedFlag | Self.oif
        let attributes = parsedRoute(attributes: rtattr(nested, uint32(6)) + rtattr(Self.oif, uint32(7)))
            .attributes(after: 12)
        #expect(attributes[Self.oif].map { readUInt32($0, at: $0.startIndex) } == 6)
        #expect(attributes.count == 1)
    }

    @Test func aReplyWithoutAttributesHasNone() {
        #expect(parsedRoute(attributes: []).attributes(after: 12).isEmpty)
    }

    @Test func attributesTheServiceWritesAreTheOnesTheKernelFormatReads() {
        // RouteLookup writes RTA_DST and RTA_OIF with appendAttribute; they
        // must come out padded and readable exactly as the kernel's do.
        var written: [UInt8] = []
        written.appendAttribute(type: Self.destination, payload: [0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])
        written.appendAttribute(type: Self.oif, payload: [3, 0])
        #expect(written == rtattr(Self.destination, [0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])
                + rtattr(Self.oif, [3, 0]))
    }

    // MARK: Bytes, as the kernel lays them out

    private func parsedRoute(attributes: [UInt8]) -> NetlinkMessage {
        let (messages, _) = NetlinkMessage.parse(message(type: Self.newRoute, sequence: 1,
                                                         body: routeHeader(type: 1, table: 254) + attributes)[...])
        return messages[0]
    }

    /// struct nlmsghdr (len, type, flags, seq, pid) and the body, padded to 4 bytes.
    private func message(type: UInt16, sequence: UInt32, body: [UInt8]) -> [UInt8] {
        let bytes = uint32(UInt32(16 + body.count)) + uint16(type) + uint16(0) + uint32(sequence) + uint32(0) + body
        return bytes + [UInt8](repeating: 0, count: (4 - bytes.count % 4) % 4)
    }

    /// struct rtmsg: family, dst_len, src_len, tos, table, protocol, scope, type, flags (u32).
    private func routeHeader(type: UInt8, table: UInt8) -> [UInt8] {
        [2 /* AF_INET */, 32, 0, 0, table, 4, 0, type] + uint32(0)
    }

}
