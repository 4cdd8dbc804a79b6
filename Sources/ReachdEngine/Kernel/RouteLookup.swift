import CReachdNetlink
import ReachdEventLoops
import Glibc
import ReachdCore
import Synchronization

/// Asks the kernel's routing tables, over a NETLINK_ROUTE socket, which route
/// a packet to an address would take: `RTM_GETROUTE` for one destination, so
/// the cost is one longest-prefix match whatever the table size, and every
/// `ip rule` an application's packet meets applies (no interface, mark or uid
/// is given; the kernel uses reachd's own uid, the session user's).
///
/// A lookup is answered by the kernel while the request is being sent, so it
/// is a pair of system calls, not a wait; requests are serialised on the
/// socket by a mutex and may come from any task.
public final class RouteLookup: Sendable {
    private struct SocketState {
        var descriptor: Int32
        var sequence: UInt32 = 0
        /// The receive buffer, made once: allocating and zeroing 64 KiB for every lookup cost
        /// more than the rest of the lookup. Not zeroed (recv writes before anything reads),
        /// so an idle reachd has only the pages a reply ever reached.
        var buffer = [UInt8](unsafeUninitializedCapacity: 64 * 1024) { _, count in count = 64 * 1024 }
    }

    private let socket: Mutex<SocketState>

    public init() throws(SystemCallError) {
        let descriptor = try Self.openSocket()
        socket = Mutex(SocketState(descriptor: descriptor))
    }

    deinit {
        _ = socket.withLock { close($0.descriptor) }
    }

    /// What the kernel said about one destination.
    enum Answer: Sendable, Equatable {
        case route(RouteMessage)
        /// `ENETUNREACH`: no route at all.
        case noRoute
        /// An unreachable, prohibit, blackhole or throw route, or a rule that
        /// forbids (`EHOSTUNREACH`, `EACCES`, `EPERM`, `EINVAL`): blocked.
        case rejected(Int32)
    }

    /// The route a packet to `destination` would take. With `fibMatch` the
    /// answer is the table entry that matched (its prefix length tells a
    /// default route from a more specific one) rather than the resolved path.
    /// A zone-scoped IPv6 address is looked up on its interface; nothing else is.
    /// Throws when the kernel gave no answer at all: that is not "no route".
    func lookup(_ destination: IPAddress, fibMatch: Bool = false) throws(RouteLookupFailure) -> Answer {
        var attributes: [UInt8] = []
        attributes.appendAttribute(type: UInt16(RTA_DST.rawValue), payload: destination.bytes)
        if !destination.zone.isEmpty {
            // The zone's interface went away after the host was accepted: the
            // address is on a link that no longer exists, so there is no route
            // (asking without the zone would answer for another link).
            let index = destination.zoneIndex
            guard index != 0 else { return .noRoute }
            attributes.appendAttribute(type: UInt16(RTA_OIF.rawValue), payload: withUnsafeBytes(of: index) { Array($0) })
        }
        let family = destination.family == .v4 ? UInt8(AF_INET) : UInt8(AF_INET6)
        let flags = fibMatch ? UInt32(RTM_F_FIB_MATCH) : 0
        switch try request(family: family, destinationLength: UInt8(destination.bytes.count * 8), flags: flags,
                           dump: false, attributes: attributes) {
        case .refused(ENETUNREACH):
            return .noRoute
        case .refused(let code) where [EHOSTUNREACH, EACCES, EPERM, EINVAL, ENODEV].contains(code):
            return .rejected(code)
        case .refused(let code):
            throw RouteLookupFailure(reason: "the kernel answered the route lookup for \(destination) with \(String(cString: strerror(code)))")
        case .messages(let replies):
            guard let route = replies.lazy.compactMap(RouteMessage.init).first else { return .noRoute }
            return .route(route)
        }
    }

    /// The route to `address` as a host monitor judges it, or nil when the
    /// kernel has none (no route, or a reject route). `links` may carry
    /// interface facts already read in this round.
    func route(to address: IPAddress, links: LinkSnapshots = LinkSnapshots()) throws(RouteLookupFailure) -> RouteLookupResult? {
        guard case .route(let route) = try lookup(address) else { return nil }
        guard let link = links.link(index: route.outputInterface) else {
            return route.type == .unicast ? nil : RouteLookupResult(
                type: route.type, hasGateway: false, outgoingInterface: "", medium: .other, linkIsUp: false,
                isDefaultRoute: false)
        }
        return RouteLookupResult(
            type: route.type, hasGateway: route.hasGateway, outgoingInterface: link.name,
            medium: link.medium, linkIsUp: link.isUpAndRunning, isDefaultRoute: false)
    }

    /// Every default route (prefix length 0) of `family` in every table, from
    /// one strict dump: the kernel filters by family and skips cloned and
    /// exception routes (`NETLINK_GET_STRICT_CHK`), as GLib does. Costs a pass
    /// over the whole table, so it is made once, when first needed.
    static func dumpDefaultRoutes(_ family: IPAddress.Family) throws(RouteLookupFailure) -> [RouteMessage] {
        let descriptor: Int32
        do {
            descriptor = try openSocket()
            var on: Int32 = 1
            try systemCall("setsockopt(NETLINK_GET_STRICT_CHK)") {
                setsockopt(descriptor, Int32(SOL_NETLINK), NETLINK_GET_STRICT_CHK, &on, socklen_t(MemoryLayout<Int32>.size))
            }
        } catch {
            throw RouteLookupFailure(reason: "\(error)")
        }
        let dumper = RouteLookup(descriptor: descriptor)
        // The kernel filters a strict dump by table, protocol, type and link, not by prefix length:
        // every route comes. Only default routes are kept, read from rtmsg's dst_len before any
        // attribute is: a 300,000-route table cost reachd's first answer 0.5 s parsed whole.
        let answer = try dumper.request(family: family == .v4 ? UInt8(AF_INET) : UInt8(AF_INET6), destinationLength: 0,
                                        flags: 0, dump: true, attributes: [],
                                        keeping: { $0.payload.count > 1 && $0.payload[$0.payload.startIndex + 1] == 0 })
        guard case .messages(let messages) = answer else {
            throw RouteLookupFailure(reason: "the kernel refused to list its routes")
        }
        return messages.compactMap(RouteMessage.init).filter { $0.destinationLength == 0 }
    }

    private init(descriptor: Int32) {
        socket = Mutex(SocketState(descriptor: descriptor))
    }

    /// A NETLINK_ROUTE socket for requests, whose replies time out after 1 s.
    static func openSocket() throws(SystemCallError) -> Int32 {
        let descriptor = try systemCall("socket(AF_NETLINK)") {
            Glibc.socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), NETLINK_ROUTE)
        }
        // A lookup never legitimately takes long; don't let a lost reply hang
        // a caller. Without the timeout one lost reply would, so it is not optional.
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        do throws(SystemCallError) {
            try systemCall("setsockopt(SO_RCVTIMEO)") {
                setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            }
        } catch {
            close(descriptor)
            throw error
        }
        return descriptor
    }

    // MARK: Requests

    private enum Reply {
        /// The messages the kernel answered with (none for an empty dump).
        case messages([NetlinkMessage])
        /// The kernel's error for the request (a positive errno).
        case refused(Int32)
    }

    /// Sends one RTM_GETROUTE and collects the answers to it; throws when
    /// the request could not be sent or no answer came.
    /// `keeping`: which of a dump's messages to collect (the others are read and dropped).
    private func request(family: UInt8, destinationLength: UInt8, flags: UInt32, dump: Bool,
                         attributes: [UInt8], keeping: (NetlinkMessage) -> Bool = { _ in true }) throws(RouteLookupFailure) -> Reply {
        let outcome = socket.withLock { state -> Result<Reply, RouteLookupFailure> in
            state.sequence &+= 1
            let sequence = state.sequence
            var body: [UInt8] = [family, destinationLength, 0, 0, 0, 0, 0, 0]
            body.appendRaw(flags)  // rtm_flags
            body += attributes
            var packet: [UInt8] = []
            packet.appendRaw(CNetlink_NLMSG_LENGTH(UInt32(body.count)))
            packet.appendRaw(UInt16(RTM_GETROUTE))
            packet.appendRaw(UInt16(NLM_F_REQUEST) | (dump ? UInt16(NLM_F_DUMP) : 0))
            packet.appendRaw(sequence)
            packet.appendRaw(UInt32(0))  // port id: the kernel fills it
            packet += body
            guard send(state.descriptor, packet, packet.count, 0) == packet.count else {
                return .failure(RouteLookupFailure(reason: "sending the route lookup failed: \(String(cString: strerror(errno)))"))
            }

            var answers: [NetlinkMessage] = []
            // 64 KiB: large enough that the kernel packs a dump into its biggest datagrams.
            while true {
                let descriptor = state.descriptor
                let count = state.buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                guard count > 0 else {
                    let reason = count == 0 ? "the routing socket closed" : String(cString: strerror(errno))
                    return .failure(RouteLookupFailure(reason: "no answer to the route lookup: \(reason)"))
                }
                let (messages, _) = NetlinkMessage.parse(state.buffer[..<count])
                for message in messages where message.sequence == sequence {
                    if message.type == UInt16(NLMSG_DONE) { return .success(.messages(answers)) }
                    if message.type == UInt16(NLMSG_ERROR) {
                        // struct nlmsgerr starts with the negative errno (0 is an acknowledgement).
                        let code = message.payload.count >= 4 ? -Int32(bitPattern: readUInt32(message.payload, at: message.payload.startIndex)) : EIO
                        return .success(code == 0 ? .messages(answers) : .refused(code))
                    }
                    if !dump { return .success(.messages([message])) }
                    // A copy of the kept bytes, so that the next datagram reuses the buffer.
                    if keeping(message) {
                        answers.append(NetlinkMessage(type: message.type, sequence: message.sequence, payload: ArraySlice(Array(message.payload))))
                    }
                }
            }
        }
        return try outcome.get()
    }
}

/// The kernel gave no answer to a route lookup (the request could not be
/// sent, the reply timed out, or the kernel failed for want of memory): a
/// transient failure, never to be read as "no route".
struct RouteLookupFailure: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}
