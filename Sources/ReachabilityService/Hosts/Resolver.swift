import Glibc
import Synchronization

/// Resolves DNS names with `getaddrinfo`, off every event loop.
///
/// getaddrinfo blocks and cannot be cancelled, so lookups run on a few
/// threads of their own (`ResolverThreads`, at most `maximumConcurrent`),
/// in arrival order. A caller gets nil after `timeout` even when its lookup
/// hangs on or is still waiting its turn, so a slow resolver delays only the
/// names behind it, never another client or an address monitor; a lookup
/// whose caller has given up is skipped.
final class Resolver: Sendable {
    private let threads: ResolverThreads
    private let timeout: Duration

    init(maximumConcurrent: Int = 8, timeout: Duration = .seconds(5)) {
        self.threads = ResolverThreads(maximum: maximumConcurrent)
        self.timeout = timeout
    }

    /// The addresses `name` resolves to in the resolver's order, [] when it
    /// does not resolve, nil when the resolver did not answer in time.
    func resolve(_ name: String) async -> [IPAddress]? {
        let outcome = OneShot<[IPAddress]?>()
        return await withCheckedContinuation { (continuation: CheckedContinuation<[IPAddress]?, Never>) in
            outcome.arm(continuation)
            threads.run {
                guard !outcome.isDone else { return }
                outcome.resume(with: Self.lookUp(name))
            }
            outcome.limit(to: timeout, answering: nil)
        }
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

/// A continuation resumed by whichever comes first: the answer or the
/// timeout. The answer cancels the timeout, so no timer outlives its lookup.
private final class OneShot<Value: Sendable>: Sendable {
    private struct Waiting {
        var continuation: CheckedContinuation<Value, Never>?
        var timer: Task<Void, Never>?
    }

    private let waiting = Mutex(Waiting())

    func arm(_ continuation: CheckedContinuation<Value, Never>) {
        waiting.withLock { $0.continuation = continuation }
    }

    /// Resumes with `fallback` once `timeout` has passed without an answer.
    func limit(to timeout: Duration, answering fallback: Value) {
        let timer = Task {
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            self.resume(with: fallback)
        }
        let answered = waiting.withLock { waiting in
            waiting.timer = timer
            return waiting.continuation == nil
        }
        if answered { timer.cancel() }
    }

    func resume(with value: Value) {
        let (continuation, timer) = waiting.withLock { waiting in
            defer { waiting = Waiting() }
            return (waiting.continuation, waiting.timer)
        }
        continuation?.resume(returning: value)
        timer?.cancel()
    }

    /// Whether the answer (or the timeout) has already been given.
    var isDone: Bool { waiting.withLock { $0.continuation == nil } }
}
