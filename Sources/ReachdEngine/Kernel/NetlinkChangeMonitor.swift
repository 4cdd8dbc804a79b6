import CReachdNetlink
import ReachdEventLoops
import Glibc

/// Tells when links, addresses, routes or routing rules change, from
/// rtnetlink's multicast groups, read on an event loop (no polling, no thread
/// of its own).
///
/// Changes are coalesced: a burst of kernel messages becomes one "something
/// changed" for the consumer, who then looks again at what it needs. Default
/// routes are also handed to the `DefaultRouteSet`, which so stays current
/// without dumping the table. At scale: rule changes count (wg-quick and kill
/// switches change only rules), the receive buffer is 1 MiB, and a kernel-side
/// filter drops routing daemons' churn for other than default routes unless
/// `allRouteEvents` is set.
actor NetlinkChangeMonitor {
    private let loop: EventLoop
    private let defaultRoutes: DefaultRouteSet
    private let allRouteEvents: Bool
    private var descriptor: Int32 = -1
    private var continuation: AsyncStream<Void>.Continuation?

    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    init(loop: EventLoop, defaultRoutes: DefaultRouteSet, allRouteEvents: Bool = false) {
        self.loop = loop
        self.defaultRoutes = defaultRoutes
        self.allRouteEvents = allRouteEvents
    }

    /// A stream that yields once after each burst of changes.
    func changes() throws(SystemCallError) -> AsyncStream<Void> {
        let descriptor = try systemCall("socket(AF_NETLINK)") {
            socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), NETLINK_ROUTE)
        }
        var address = sockaddr_nl()
        address.nl_family = sa_family_t(AF_NETLINK)
        address.nl_groups = CNetlink_change_groups()
        do throws(SystemCallError) {
            try systemCall("bind(NETLINK_ROUTE groups)") {
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
                    }
                }
            }
            var group = Int32(RTNLGRP_IPV6_RULE.rawValue)
            try systemCall("setsockopt(NETLINK_ADD_MEMBERSHIP, IPv6 rules)") {
                setsockopt(descriptor, Int32(SOL_NETLINK), NETLINK_ADD_MEMBERSHIP, &group, socklen_t(MemoryLayout<Int32>.size))
            }
            // Best effort: the kernel clamps it to net.core.rmem_max.
            var bufferSize: Int32 = 1 << 20
            _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &bufferSize, socklen_t(MemoryLayout<Int32>.size))
            if !allRouteEvents { try attachChurnFilter(descriptor) }
            // Strong on purpose: the loop's handler is what keeps this monitor alive
            // while its stream is consumed (callers keep only the stream); stop(),
            // run when the stream ends, unwatches and so breaks the cycle.
            try loop.watch(descriptor, for: .readable) { [self] _ in
                self.assumeIsolated { $0.drain() }
            }
        } catch {
            close(descriptor)
            throw error
        }
        self.descriptor = descriptor
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.continuation = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.stop() }
        }
        return stream
    }

    private func attachChurnFilter(_ descriptor: Int32) throws(SystemCallError) {
        var code = RouteChurnFilter.program
        try code.withUnsafeMutableBufferPointer { (instructions) throws(SystemCallError) in
            var program = sock_fprog(len: UInt16(instructions.count), filter: instructions.baseAddress)
            try systemCall("setsockopt(SO_ATTACH_FILTER)") {
                setsockopt(descriptor, SOL_SOCKET, SO_ATTACH_FILTER, &program, socklen_t(MemoryLayout<sock_fprog>.size))
            }
        }
    }

    private func drain() {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var changed = false
        while true {
            do throws(SystemCallError) {
                let count = try systemCall("recv(NETLINK_ROUTE)") {
                    recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                }
                if count == 0 { break }
                let (messages, _) = NetlinkMessage.parse(buffer[..<count])
                if !messages.isEmpty { changed = true }
                for message in messages {
                    guard let route = RouteMessage(message), route.destinationLength == 0 else { continue }
                    defaultRoutes.apply(route, removed: message.type == UInt16(RTM_DELROUTE))
                }
            } catch where error.errno == ENOBUFS {
                // We fell behind and lost messages; a change happened all the same,
                // and the default-route set may have missed one.
                defaultRoutes.markStale()
                changed = true
            } catch {
                // EAGAIN: drained. Any other error ends this round too; the
                // next readiness tries again.
                break
            }
        }
        if changed { continuation?.yield() }
    }

    private func stop() {
        guard descriptor >= 0 else { return }
        loop.unwatch(descriptor)
        close(descriptor)
        descriptor = -1
        continuation = nil
    }
}
