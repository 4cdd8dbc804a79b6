import CNetlink
import EventLoops
import Glibc
import ReachabilityCore
import Synchronization

/// Asks the kernel's routing tables, over a NETLINK_ROUTE socket, which
/// route a packet to an address would take, and what the default routes are.
///
/// A lookup is answered by the kernel while the request is being sent, so
/// it is a pair of system calls, not a wait; requests are serialised on the
/// socket by a mutex and may come from any task.
public final class RouteLookup: Sendable {
    private struct SocketState {
        var descriptor: Int32
        var sequence: UInt32 = 0
    }

    private let socket: Mutex<SocketState>

    public init() throws(SystemCallError) {
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
        socket = Mutex(SocketState(descriptor: descriptor))
    }

    deinit {
        _ = socket.withLock { close($0.descriptor) }
    }

    /// The route to `address`, or nil when the kernel has none (unreachable,
    /// prohibited, blackholed and "network is unreachable" all answer with an error).
    /// `links` may carry interface facts already read in this round.
    /// Throws when the kernel gave no answer at all: that is not "no route".
    func route(to address: IPAddress, links: LinkSnapshots = LinkSnapshots()) throws(RouteLookupFailure) -> RouteLookupResult? {
        var attributes: [UInt8] = []
        attributes.appendAttribute(type: UInt16(RTA_DST.rawValue), payload: address.bytes)
        if !address.zone.isEmpty {
            // The zone's interface went away after the host was accepted: the
            // address is on a link that no longer exists, so there is no route
            // (asking without the zone would answer for another link).
            let index = address.zoneIndex
            guard index != 0 else { return nil }
            attributes.appendAttribute(type: UInt16(RTA_OIF.rawValue), payload: withUnsafeBytes(of: index) { Array($0) })
        }
        let family = address.family == .v4 ? UInt8(AF_INET) : UInt8(AF_INET6)
        switch try request(family: family, destinationLength: UInt8(address.bytes.count * 8), dump: false, attributes: attributes) {
        case .refused(let code) where Self.meansNoRoute(code):
            return nil
        case .refused(let code):
            throw RouteLookupFailure(reason: "the kernel answered the route lookup for \(address) with \(String(cString: strerror(code)))")
        case .routes(let replies):
            guard let route = replies.compactMap(Self.decodeRoute).first else { return nil }
            return result(for: route, isDefaultRoute: false, links: links)
        }
    }

    /// The errors with which the kernel says "there is no usable route": no
    /// route at all, or an unreachable, prohibit or blackhole route (or a
    /// destination it cannot route, such as a zone naming no interface).
    /// Any other error is a failure to answer, not an answer.
    private static func meansNoRoute(_ code: Int32) -> Bool {
        [ENETUNREACH, EHOSTUNREACH, EACCES, EPERM, EINVAL, ENODEV].contains(code)
    }

    /// The main table's default route for IPv4 or IPv6 (lowest metric), nil when none.
    /// Throws when the kernel did not answer the dump.
    func defaultRoute(_ family: IPAddress.Family, links: LinkSnapshots = LinkSnapshots()) throws(RouteLookupFailure) -> RouteLookupResult? {
        let answer = try request(family: family == .v4 ? UInt8(AF_INET) : UInt8(AF_INET6), destinationLength: 0,
                                 dump: true, attributes: [])
        guard case .routes(let replies) = answer else {
            if case .refused(let code) = answer {
                throw RouteLookupFailure(reason: "the kernel refused to list its routes: \(String(cString: strerror(code)))")
            }
            return nil
        }
        let defaults = replies.compactMap(Self.decodeRoute).filter {
            $0.destinationLength == 0 && $0.table == UInt32(RT_TABLE_MAIN.rawValue) && $0.type == .unicast
        }
        guard let best = defaults.min(by: { $0.priority < $1.priority }) else { return nil }
        return result(for: best, isDefaultRoute: true, links: links)
    }

    // MARK: Decoding

    private struct DecodedRoute {
        var type: RouteType
        var destinationLength: UInt8
        var table: UInt32
        var outputInterface: UInt32
        var hasGateway: Bool
        var priority: UInt32
    }

    private static func decodeRoute(_ message: NetlinkMessage) -> DecodedRoute? {
        guard message.type == UInt16(RTM_NEWROUTE), message.payload.count >= MemoryLayout<rtmsg>.size else { return nil }
        let start = message.payload.startIndex
        // struct rtmsg: family, dst_len, src_len, tos, table, protocol, scope, type, flags(u32)
        let attributes = message.attributes(after: MemoryLayout<rtmsg>.size)
        var outputInterface = attributes[UInt16(RTA_OIF.rawValue)].flatMap { $0.count >= 4 ? readUInt32($0, at: $0.startIndex) : nil } ?? 0
        var hasGateway = attributes[UInt16(RTA_GATEWAY.rawValue)] != nil
        if outputInterface == 0, let multipath = attributes[UInt16(RTA_MULTIPATH.rawValue)], multipath.count >= 8 {
            // struct rtnexthop: len(u16), flags(u8), hops(u8), ifindex(i32), then attributes.
            outputInterface = readUInt32(multipath, at: multipath.startIndex + 4)
            hasGateway = hasGateway || multipath.count > 8
        }
        return DecodedRoute(
            type: RouteType(rawValue: message.payload[start + 7]),
            destinationLength: message.payload[start + 1],
            table: attributes[UInt16(RTA_TABLE.rawValue)].flatMap { $0.count >= 4 ? readUInt32($0, at: $0.startIndex) : nil }
                ?? UInt32(message.payload[start + 4]),
            outputInterface: outputInterface,
            hasGateway: hasGateway,
            priority: attributes[UInt16(RTA_PRIORITY.rawValue)].flatMap { $0.count >= 4 ? readUInt32($0, at: $0.startIndex) : nil } ?? 0)
    }

    private func result(for route: DecodedRoute, isDefaultRoute: Bool, links: LinkSnapshots) -> RouteLookupResult? {
        guard let link = links.link(index: route.outputInterface) else {
            return route.type == .unicast ? nil : RouteLookupResult(
                type: route.type, hasGateway: false, outgoingInterface: "", medium: .other, linkIsUp: false,
                isDefaultRoute: isDefaultRoute)
        }
        return RouteLookupResult(
            type: route.type, hasGateway: route.hasGateway, outgoingInterface: link.name,
            medium: link.medium, linkIsUp: link.isUpAndRunning, isDefaultRoute: isDefaultRoute)
    }

    // MARK: Requests

    private enum Answer {
        /// The routes the kernel answered with (none for an empty dump).
        case routes([NetlinkMessage])
        /// The kernel's error for the request (a positive errno).
        case refused(Int32)
    }

    /// Sends one RTM_GETROUTE and collects the answers to it; throws when
    /// the request could not be sent or no answer came.
    private func request(family: UInt8, destinationLength: UInt8, dump: Bool, attributes: [UInt8]) throws(RouteLookupFailure) -> Answer {
        let outcome = socket.withLock { state -> Result<Answer, RouteLookupFailure> in
            state.sequence &+= 1
            let sequence = state.sequence
            var body: [UInt8] = [family, destinationLength, 0, 0, 0, 0, 0, 0]
            body.appendRaw(UInt32(0))  // rtm_flags
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
            var buffer = [UInt8](repeating: 0, count: 32 * 1024)
            while true {
                let count = recv(state.descriptor, &buffer, buffer.count, 0)
                guard count > 0 else {
                    let reason = count == 0 ? "the routing socket closed" : String(cString: strerror(errno))
                    return .failure(RouteLookupFailure(reason: "no answer to the route lookup: \(reason)"))
                }
                let (messages, _) = NetlinkMessage.parse(buffer[..<count])
                for message in messages where message.sequence == sequence {
                    if message.type == UInt16(NLMSG_DONE) { return .success(.routes(answers)) }
                    if message.type == UInt16(NLMSG_ERROR) {
                        // struct nlmsgerr starts with the negative errno (0 is an acknowledgement).
                        let code = message.payload.count >= 4 ? -Int32(bitPattern: readUInt32(message.payload, at: message.payload.startIndex)) : EIO
                        return .success(code == 0 ? .routes(answers) : .refused(code))
                    }
                    answers.append(message)
                    if !dump { return .success(.routes(answers)) }
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
