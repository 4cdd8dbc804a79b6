import ReachdEventLoops
import Glibc

/// One HTTP exchange of the connectivity check: a non-blocking TCP socket on reachd's event
/// loop, bound to the path's source address (unprivileged: no SO_BINDTODEVICE), connected to
/// one address, the request written, at most `CheckAnswer.readLimit` bytes of the answer read.
/// Used once. Ends at the deadline, or when its task is cancelled, whichever comes first; the
/// socket is closed on every way out.
actor HTTPProbe {
    enum Outcome: Sendable, Equatable {
        /// What was read before the server closed (or the limit was reached).
        case answered([UInt8])
        /// No connection, no answer, or the deadline: why, for the log.
        case failed(String)
    }

    private let loop: EventLoop
    private var descriptor: Int32 = -1
    private var continuation: CheckedContinuation<Outcome, Never>?
    private var timer: TimerQueue.TimerID?
    private var request: [UInt8] = []
    private var written = 0
    private var received: [UInt8] = []

    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    init(loop: EventLoop) {
        self.loop = loop
    }

    /// Sends `request` to `address`:`port` from `source` (nil: the kernel's choice) and reads the answer.
    func exchange(_ request: [UInt8], with address: IPAddress, port: UInt16, from source: IPAddress?,
                  deadline: ContinuousClock.Instant) async -> Outcome {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                self.continuation = continuation
                self.request = request
                if Task.isCancelled { return finish(.failed("cancelled")) }
                timer = loop.schedule(at: deadline) { [self] in
                    // What came before the deadline still counts (a server that never closes).
                self.assumeIsolated { $0.timer = nil; $0.finish($0.received.isEmpty ? .failed("no answer in time") : .answered($0.received)) }
                }
                do throws(SystemCallError) {
                    try open(to: address, port: port, from: source)
                } catch {
                    finish(.failed("\(error)"))
                }
            }
        } onCancel: {
            Task { await self.finish(.failed("cancelled")) }
        }
    }

    private func open(to address: IPAddress, port: UInt16, from source: IPAddress?) throws(SystemCallError) {
        let family = address.family == .v4 ? AF_INET : AF_INET6
        descriptor = try systemCall("socket(SOCK_STREAM)") {
            socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        }
        if let source, source.family == address.family {
            try Self.withSocketAddress(source, port: 0) { pointer, length throws(SystemCallError) in
                try systemCall("bind(source address)") { bind(descriptor, pointer, length) }
            }
        }
        do throws(SystemCallError) {
            try Self.withSocketAddress(address, port: port) { pointer, length throws(SystemCallError) in
                try systemCall("connect") { connect(descriptor, pointer, length) }
            }
        } catch where error.errno == EINPROGRESS {
            // The usual way: connected when writable.
        }
        try loop.watch(descriptor, for: .writable) { [self] ready in
            self.assumeIsolated { $0.connectedOrFailed(ready) }
        }
    }

    private func connectedOrFailed(_ ready: EventLoop.Readiness) {
        guard continuation != nil else { return }
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &code, &length) != 0 { code = Glibc.errno }
        guard code == 0 else {
            return finish(.failed("no connection: \(String(cString: strerror(code)))"))
        }
        writeRequest()
    }

    private func writeRequest() {
        while written < request.count {
            do throws(SystemCallError) {
                let count = try systemCall("send") {
                    request[written...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                }
                written += count
            } catch where error.errno == EAGAIN || error.errno == EWOULDBLOCK {
                return  // still watched for writable
            } catch {
                return finish(.failed("\(error)"))
            }
        }
        do throws(SystemCallError) {
            try loop.watch(descriptor, for: .readable) { [self] _ in
                self.assumeIsolated { $0.readAnswer() }
            }
        } catch {
            finish(.failed("\(error)"))
        }
    }

    private func readAnswer() {
        guard continuation != nil else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while received.count < CheckAnswer.readLimit {
            let wanted = min(buffer.count, CheckAnswer.readLimit - received.count)
            do throws(SystemCallError) {
                let count = try systemCall("recv") { recv(descriptor, &buffer, wanted, Int32(MSG_DONTWAIT)) }
                if count == 0 { break }
                received += buffer[..<count]
                if CheckAnswer(received)?.isComplete == true { break }
            } catch where error.errno == EAGAIN || error.errno == EWOULDBLOCK {
                // A whole header (and so a status) may already say enough; else wait for more.
                return
            } catch {
                return finish(received.isEmpty ? .failed("\(error)") : .answered(received))
            }
        }
        finish(received.isEmpty ? .failed("the server closed the connection without answering") : .answered(received))
    }

    private func finish(_ outcome: Outcome) {
        if let timer { loop.cancelTimer(timer) }
        timer = nil
        if descriptor >= 0 {
            loop.unwatch(descriptor)
            close(descriptor)
            descriptor = -1
        }
        let waiting = continuation
        continuation = nil
        waiting?.resume(returning: outcome)
    }

    @discardableResult
    private static func withSocketAddress<T>(
        _ address: IPAddress, port: UInt16,
        _ body: (UnsafePointer<sockaddr>, socklen_t) throws(SystemCallError) -> T
    ) throws(SystemCallError) -> T {
        switch address.family {
        case .v4:
            var socketAddress = sockaddr_in()
            socketAddress.sin_family = sa_family_t(AF_INET)
            socketAddress.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &socketAddress.sin_addr) { $0.copyBytes(from: address.bytes) }
            return try withUnsafePointer(to: &socketAddress) { (pointer) throws(SystemCallError) -> T in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (raw) throws(SystemCallError) -> T in
                    try body(raw, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        case .v6:
            var socketAddress = sockaddr_in6()
            socketAddress.sin6_family = sa_family_t(AF_INET6)
            socketAddress.sin6_port = port.bigEndian
            socketAddress.sin6_scope_id = address.zoneIndex
            withUnsafeMutableBytes(of: &socketAddress.sin6_addr) { $0.copyBytes(from: address.bytes) }
            return try withUnsafePointer(to: &socketAddress) { (pointer) throws(SystemCallError) -> T in
                try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (raw) throws(SystemCallError) -> T in
                    try body(raw, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
    }
}
