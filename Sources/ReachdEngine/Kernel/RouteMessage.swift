import CReachdNetlink
import Glibc
import ReachdCore

/// One route as rtnetlink describes it (`RTM_NEWROUTE`/`RTM_DELROUTE`): the
/// answer to a lookup, an entry of a dump, or a notification.
///
/// The next hop is read wherever the kernel puts it: `RTA_GATEWAY`, `RTA_VIA`
/// (a gateway of the other family: an IPv4 route via an IPv6 link-local
/// router, RFC 8950), or the first live next hop of `RTA_MULTIPATH`.
/// A route resolved from a nexthop object (`nhid`) carries oif and gateway
/// itself, so `RTA_NH_ID` needs no reading.
///
/// ```swift
/// RouteMessage(message)?.gateway   // fe80::1%3 for "default via inet6 fe80::1 dev eth0"
/// ```
struct RouteMessage: Sendable, Equatable {
    var family: IPAddress.Family
    var type: RouteType
    /// `rtm_dst_len`: 0 for a default route.
    var destinationLength: UInt8
    /// `RTA_TABLE`, else `rtm_table`.
    var table: UInt32
    /// `rtm_protocol` (boot, static, dhcp, bird, …).
    var routingProtocol: UInt8
    /// `RTA_OIF`, or the chosen multipath next hop's; 0 when none.
    var outputInterface: UInt32
    var gateway: IPAddress?
    /// `RTA_PREFSRC`: the source address the kernel would use.
    var preferredSource: IPAddress?
    /// `RTA_PRIORITY` (the metric).
    var priority: UInt32

    /// Without a gateway the destination is on the link (`IsDirect`).
    var hasGateway: Bool { gateway != nil }

    /// `RTM_NEWROUTE` or `RTM_DELROUTE`; nil for any other message or a short one.
    init?(_ message: NetlinkMessage) {
        guard message.type == UInt16(RTM_NEWROUTE) || message.type == UInt16(RTM_DELROUTE),
              message.payload.count >= MemoryLayout<rtmsg>.size else { return nil }
        let header = message.payload.startIndex
        // struct rtmsg: family, dst_len, src_len, tos, table, protocol, scope, type, flags (u32).
        guard let family = Self.family(message.payload[header]) else { return nil }
        let attributes = message.attributes(after: MemoryLayout<rtmsg>.size)
        func u32(_ type: rtattr_type_t) -> UInt32? {
            attributes[UInt16(type.rawValue)].flatMap { $0.count >= 4 ? readUInt32($0, at: $0.startIndex) : nil }
        }
        self.family = family
        self.type = RouteType(rawValue: message.payload[header + 7])
        self.destinationLength = message.payload[header + 1]
        self.table = u32(RTA_TABLE) ?? UInt32(message.payload[header + 4])
        self.routingProtocol = message.payload[header + 5]
        self.priority = u32(RTA_PRIORITY) ?? 0
        self.preferredSource = attributes[UInt16(RTA_PREFSRC.rawValue)].flatMap { Self.address($0, family: family) }
        self.outputInterface = u32(RTA_OIF) ?? 0
        self.gateway = Self.nextHop(in: attributes, family: family, interface: outputInterface)
        if outputInterface == 0 || gateway == nil,
           let multipath = attributes[UInt16(RTA_MULTIPATH.rawValue)],
           let hop = Self.firstLiveNextHop(multipath, family: family) {
            if outputInterface == 0 { outputInterface = hop.interface }
            if gateway == nil { gateway = hop.gateway }
        }
    }

    init(family: IPAddress.Family, type: RouteType, destinationLength: UInt8, table: UInt32, routingProtocol: UInt8 = 0,
         outputInterface: UInt32, gateway: IPAddress? = nil, preferredSource: IPAddress? = nil, priority: UInt32 = 0) {
        self.family = family
        self.type = type
        self.destinationLength = destinationLength
        self.table = table
        self.routingProtocol = routingProtocol
        self.outputInterface = outputInterface
        self.gateway = gateway
        self.preferredSource = preferredSource
        self.priority = priority
    }

    // MARK: Decoding

    private static func family(_ value: UInt8) -> IPAddress.Family? {
        switch Int32(value) {
        case AF_INET: .v4
        case AF_INET6: .v6
        default: nil
        }
    }

    /// An address payload of `family`; an IPv6 link-local one is scoped to `interface`.
    private static func address(_ bytes: ArraySlice<UInt8>, family: IPAddress.Family, interface: UInt32 = 0) -> IPAddress? {
        switch (family, bytes.count) {
        case (.v4, 4):
            return IPAddress(family: .v4, bytes: Array(bytes))
        case (.v6, 16):
            let linkLocal = bytes[bytes.startIndex] == 0xfe && bytes[bytes.startIndex + 1] & 0xc0 == 0x80
            return IPAddress(family: .v6, bytes: Array(bytes), zone: linkLocal && interface != 0 ? String(interface) : "")
        default:
            return nil
        }
    }

    /// `RTA_GATEWAY` (same family), else `RTA_VIA` (struct rtvia: u16 family, then the address).
    private static func nextHop(in attributes: [UInt16: ArraySlice<UInt8>], family: IPAddress.Family, interface: UInt32) -> IPAddress? {
        if let gateway = attributes[UInt16(RTA_GATEWAY.rawValue)], let address = address(gateway, family: family, interface: interface) {
            return address
        }
        guard let via = attributes[UInt16(RTA_VIA.rawValue)], via.count >= 2,
              let viaFamily = Self.family(UInt8(truncatingIfNeeded: readUInt16(via, at: via.startIndex))) else { return nil }
        return address(via.dropFirst(2), family: viaFamily, interface: interface)
    }

    /// Walks `struct rtnexthop` entries (len u16, flags u8, hops u8, ifindex s32,
    /// nested attributes) and takes the first that is neither dead nor link-down.
    private static func firstLiveNextHop(_ multipath: ArraySlice<UInt8>, family: IPAddress.Family) -> (interface: UInt32, gateway: IPAddress?)? {
        var offset = multipath.startIndex
        while multipath.endIndex - offset >= 8 {
            let length = Int(readUInt16(multipath, at: offset))
            guard length >= 8, length <= multipath.endIndex - offset else { return nil }
            let flags = multipath[offset + 2]
            let interface = readUInt32(multipath, at: offset + 4)
            if flags & UInt8(RTNH_F_DEAD | RTNH_F_LINKDOWN) == 0 {
                let nested = NetlinkMessage(type: 0, sequence: 0, payload: multipath[offset..<(offset + length)])
                    .attributes(after: 8)
                return (interface, nextHop(in: nested, family: family, interface: interface))
            }
            offset += Int(CNetlink_RTA_ALIGN(UInt32(length)))
        }
        return nil
    }
}
