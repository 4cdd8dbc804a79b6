import CNetlink
import EventLoops
import Glibc

/// Tells when links, addresses or routes change, from rtnetlink's multicast
/// groups, read on an event loop (no polling, no thread of its own).
///
/// Changes are coalesced: a burst of kernel messages becomes one "something
/// changed" for the consumer, who then looks again at what it needs.
public actor NetlinkChangeMonitor {
    private let loop: EventLoop
    private var descriptor: Int32 = -1
    private var continuation: AsyncStream<Void>.Continuation?

    public nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    public init(loop: EventLoop) {
        self.loop = loop
    }

    /// A stream that yields once after each burst of changes.
    public func changes() throws(SystemCallError) -> AsyncStream<Void> {
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

    private func drain() {
        var buffer = [UInt8](repeating: 0, count: 32 * 1024)
        var changed = false
        while true {
            do throws(SystemCallError) {
                let count = try systemCall("recv(NETLINK_ROUTE)") {
                    recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                }
                if count == 0 { break }
                let (messages, _) = NetlinkMessage.parse(buffer[..<count])
                if !messages.isEmpty { changed = true }
            } catch where error.errno == ENOBUFS {
                // We fell behind and lost messages; a change happened all the same.
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
