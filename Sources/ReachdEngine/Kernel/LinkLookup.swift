import CReachdNetlink
import ReachdEventLoops
import Glibc
import ReachdCore
import Synchronization

/// Asks the kernel what kind of link an interface is: one `RTM_GETLINK` for one index, answered
/// with its `IFLA_LINKINFO`/`IFLA_INFO_KIND` ("veth", "bridge", "dummy", …), which sysfs does not
/// show. A request, never a dump; like `RouteLookup`, the kernel answers while the request is
/// sent, and requests are serialised on the socket by a mutex.
final class LinkLookup: Sendable {
    private struct SocketState {
        var descriptor: Int32
        var sequence: UInt32 = 0
    }

    private let socket: Mutex<SocketState>

    /// The process's one link socket, opened on first use; nil if it could not be opened, and
    /// then kinds come from sysfs markers alone (`LinkInspector`).
    static let shared: LinkLookup? = try? LinkLookup()

    init() throws(SystemCallError) {
        socket = Mutex(SocketState(descriptor: try RouteLookup.openSocket()))
    }

    deinit {
        _ = socket.withLock { close($0.descriptor) }
    }

    /// What the kernel answered about a link.
    enum Answer: Equatable {
        /// The link, with its kind (nil for hardware, which has none).
        case link(kind: LinkKind?)
        /// The kernel's error (a positive errno: ENODEV when the link is gone).
        case refused(Int32)
        /// No answer: the request could not be sent, or no reply came within a second.
        case noAnswer
    }

    func link(index: UInt32) -> Answer {
        socket.withLock { state in
            state.sequence &+= 1
            let sequence = state.sequence
            let packet = Self.request(index: index, sequence: sequence)
            guard (try? systemCall("send(RTM_GETLINK)", { send(state.descriptor, packet, packet.count, 0) })) == packet.count else {
                return .noAnswer
            }
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                guard let count = try? systemCall("recv(RTM_GETLINK)", { recv(state.descriptor, &buffer, buffer.count, 0) }),
                      count > 0 else { return .noAnswer }
                for message in NetlinkMessage.parse(buffer[..<count]).messages where message.sequence == sequence {
                    return Self.decode(message)
                }
                // Anything else is the answer to an earlier request that timed out: skip it.
            }
        }
    }

    /// `nlmsghdr` + `ifinfomsg` for `index` + `IFLA_EXT_MASK` asking the kernel to leave out the
    /// statistics, which are most of a link's message and of no use here.
    static func request(index: UInt32, sequence: UInt32) -> [UInt8] {
        var body: [UInt8] = [UInt8(AF_UNSPEC), 0]
        body.appendRaw(UInt16(0))          // ifi_type
        body.appendRaw(Int32(bitPattern: index))
        body.appendRaw(UInt32(0))          // ifi_flags
        body.appendRaw(UInt32(0))          // ifi_change
        body.appendAttribute(type: UInt16(IFLA_EXT_MASK), payload: withUnsafeBytes(of: UInt32(RTEXT_FILTER_SKIP_STATS)) { Array($0) })
        var packet: [UInt8] = []
        packet.appendRaw(CNetlink_NLMSG_LENGTH(UInt32(body.count)))
        packet.appendRaw(UInt16(RTM_GETLINK))
        packet.appendRaw(UInt16(NLM_F_REQUEST))
        packet.appendRaw(sequence)
        packet.appendRaw(UInt32(0))        // port id: the kernel fills it
        return packet + body
    }

    /// The answer in one reply: `RTM_NEWLINK` with its kind, or `NLMSG_ERROR` with the errno.
    static func decode(_ message: NetlinkMessage) -> Answer {
        if message.type == UInt16(NLMSG_ERROR) {
            // struct nlmsgerr starts with the negative errno.
            guard message.payload.count >= 4 else { return .noAnswer }
            return .refused(-Int32(bitPattern: readUInt32(message.payload, at: message.payload.startIndex)))
        }
        guard message.type == UInt16(RTM_NEWLINK), message.payload.count >= MemoryLayout<ifinfomsg>.size else {
            return .noAnswer
        }
        let attributes = message.attributes(after: MemoryLayout<ifinfomsg>.size)
        guard let linkInfo = attributes[UInt16(IFLA_LINKINFO)] else { return .link(kind: nil) }
        // IFLA_LINKINFO nests attributes directly, without a family header.
        let nested = NetlinkMessage(type: 0, sequence: 0, payload: linkInfo).attributes(after: 0)
        let kind = nested[UInt16(IFLA_INFO_KIND)].map { bytes in
            LinkKind(rawValue: String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self))
        }
        return .link(kind: kind)
    }
}
