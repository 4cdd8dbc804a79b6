import CReachdNetlink

/// A classic BPF program for reachd's change socket, run by the kernel on each
/// notification before it is queued: routing daemons' churn (BGP, OSPF, … for
/// destinations other than default) never wakes reachd, while every other
/// message (links, addresses, rules, and routes from DHCP, router
/// advertisements, VPNs, `ip route`) still does.
///
/// The program reads the first message of each notification (the kernel sends
/// one per datagram): `nlmsg_type` (u16 at 4), then for `RTM_NEWROUTE`/
/// `RTM_DELROUTE` the `struct rtmsg` after the 16-byte header: `rtm_dst_len`
/// (u8 at 17) and `rtm_protocol` (u8 at 21). Offsets are pinned in CReachdNetlink.
enum RouteChurnFilter {
    /// `rtm_protocol` of routing daemons: zebra, bird, xorp, babel, openr, bgp, isis, ospf, rip, eigrp.
    static let routingDaemonProtocols: [UInt32] = [11, 12, 14, 42, 99, 186, 187, 188, 189, 192]

    static var program: [sock_filter] {
        let accept = UInt32.max
        // BPF loads halfwords in network order; netlink writes host order.
        let newRoute = UInt32(UInt16(24).bigEndian), deleteRoute = UInt32(UInt16(25).bigEndian)
        var code: [sock_filter] = [
            statement(UInt16(BPF_LD | BPF_H | BPF_ABS), 4),
            jump(equalTo: newRoute, ifTrue: 2, ifFalse: 0),
            jump(equalTo: deleteRoute, ifTrue: 1, ifFalse: 0),
            statement(UInt16(BPF_RET | BPF_K), accept),                 // not a route message
            statement(UInt16(BPF_LD | BPF_B | BPF_ABS), 17),
            jump(equalTo: 0, ifTrue: UInt8(1 + routingDaemonProtocols.count), ifFalse: 0),  // default route: keep
            statement(UInt16(BPF_LD | BPF_B | BPF_ABS), 21),
        ]
        // Each protocol test jumps to the final "drop" when it matches.
        for (index, routingProtocol) in routingDaemonProtocols.enumerated() {
            let remaining = UInt8(routingDaemonProtocols.count - index - 1)
            code.append(jump(equalTo: routingProtocol, ifTrue: remaining + 1, ifFalse: 0))
        }
        code.append(statement(UInt16(BPF_RET | BPF_K), accept))
        code.append(statement(UInt16(BPF_RET | BPF_K), 0))
        return code
    }

    private static func statement(_ code: UInt16, _ k: UInt32) -> sock_filter {
        sock_filter(code: code, jt: 0, jf: 0, k: k)
    }

    private static func jump(equalTo k: UInt32, ifTrue: UInt8, ifFalse: UInt8) -> sock_filter {
        sock_filter(code: UInt16(BPF_JMP | BPF_JEQ | BPF_K), jt: ifTrue, jf: ifFalse, k: k)
    }
}
