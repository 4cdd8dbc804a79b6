import Glibc
import Synchronization

/// Resolves DNS names with `getaddrinfo`, off every event loop.
///
/// getaddrinfo blocks and cannot be cancelled, so each lookup runs on a
/// short-lived thread of its own; at most `maximumConcurrent` run at once and
/// the rest wait their turn. A caller gets nil after `timeout` even when the
/// lookup hangs on, so a slow resolver delays only the names behind it,
/// never another client or an address monitor.
final class Resolver: Sendable {
    private struct Slots {
        var running = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let maximumConcurrent: Int
    private let timeout: Duration
    private let slots = Mutex(Slots())

    init(maximumConcurrent: Int = 8, timeout: Duration = .seconds(5)) {
        self.maximumConcurrent = maximumConcurrent
        self.timeout = timeout
    }

    /// The addresses `name` resolves to in the resolver's order, [] when it
    /// does not resolve, nil when the resolver did not answer in time.
    func resolve(_ name: String) async -> [IPAddress]? {
        await acquire()
        let outcome = OneShot<[IPAddress]?>()
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<[IPAddress]?, Never>) in
            outcome.arm(continuation)
            startThread { [self] in
                outcome.resume(with: Self.lookUp(name))
                self.release()
            }
            Task { [timeout] in
                try? await Task.sleep(for: timeout)
                outcome.resume(with: nil)
            }
        }
        return result
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = slots.withLock { slots in
                if slots.running < maximumConcurrent {
                    slots.running += 1
                    return true
                }
                slots.waiting.append(continuation)
                return false
            }
            if admitted { continuation.resume() }
        }
    }

    /// Called when a lookup thread ends (not when its caller timed out), so
    /// hung lookups keep their slot and bound the threads in flight.
    private func release() {
        let next = slots.withLock { slots -> CheckedContinuation<Void, Never>? in
            if slots.waiting.isEmpty {
                slots.running -= 1
                return nil
            }
            return slots.waiting.removeFirst()
        }
        next?.resume()
    }

    private static func lookUp(_ name: String) -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var addresses: [IPAddress] = []
        var entry = list
        while let current = entry?.pointee {
            if let address = Self.address(from: current), !addresses.contains(address) { addresses.append(address) }
            entry = current.ai_next
        }
        return addresses
    }

    private static func address(from entry: addrinfo) -> IPAddress? {
        guard let socketAddress = entry.ai_addr else { return nil }
        switch entry.ai_family {
        case AF_INET:
            return socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin_addr) { IPAddress(family: .v4, bytes: Array($0)) }
            }
        case AF_INET6:
            return socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                let scope = pointer.pointee.sin6_scope_id
                return withUnsafeBytes(of: pointer.pointee.sin6_addr) {
                    IPAddress(family: .v6, bytes: Array($0), zone: scope == 0 ? "" : String(scope))
                }
            }
        default:
            return nil
        }
    }
}

/// A continuation resumed by whichever comes first: the answer or the timeout.
private final class OneShot<Value: Sendable>: Sendable {
    private let continuation = Mutex<CheckedContinuation<Value, Never>?>(nil)

    func arm(_ continuation: CheckedContinuation<Value, Never>) {
        self.continuation.withLock { $0 = continuation }
    }

    func resume(with value: Value) {
        continuation.withLock { stored in
            stored?.resume(returning: value)
            stored = nil
        }
    }
}

/// Runs `body` on a new detached thread.
private func startThread(_ body: @escaping @Sendable () -> Void) {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let context = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let result = pthread_create(&thread, nil, { context in
        Unmanaged<Box>.fromOpaque(context!).takeRetainedValue().body()
        return nil
    }, context)
    if result == 0 {
        pthread_detach(thread)
    } else {
        Unmanaged<Box>.fromOpaque(context).takeRetainedValue().body()
    }
}
