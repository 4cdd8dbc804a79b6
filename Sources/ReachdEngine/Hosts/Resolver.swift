import Glibc
import Synchronization

/// Resolves DNS names with `getaddrinfo`, off every event loop, fairly between clients.
///
/// - Names in `/etc/hosts` (localhost above all) are answered at once, without a thread.
/// - Other names wait their turn on `ResolverThreads`: round-robin between clients, at most
///   two lookups of one client on a thread at once, so one client's slow names cost other
///   clients nothing.
/// - A lookup's time limit starts when it starts running, not while it waits its turn: a name
///   queued behind a slow one never borrows that one's timeout. One that runs out of time answers
///   `.couldNotResolve`, only to its own caller; the thread stays with getaddrinfo until it
///   returns (it cannot be cancelled), and that still counts against the client's cap.
final class Resolver: Sendable {
    /// What a lookup found.
    enum Answer: Sendable, Equatable {
        /// The addresses, in the resolver's order.
        case addresses([IPAddress])
        /// The name does not exist, or has no address: a fact (the host is not reachable).
        case noAddress
        /// No answer (timed out, the server failed, the system failed): nothing is known.
        case couldNotResolve(String)
    }

    private let threads: ResolverThreads
    private let timeout: Duration
    private let queueLimit: Duration
    private let hostsFile: @Sendable () -> HostsFile

    /// `timeout` bounds one running lookup; `queueLimit` bounds the wait for a turn, which only
    /// the same client's earlier names can make long.
    init(maximumThreads: Int = 8, perClientLimit: Int = 2, timeout: Duration = .seconds(5),
         queueLimit: Duration = .seconds(20), idleThreadLifetime: Duration = .seconds(10),
         hostsFile: @escaping @Sendable () -> HostsFile = HostsFile.cachedLoader()) {
        self.threads = ResolverThreads(maximum: maximumThreads, perClientLimit: perClientLimit,
                                       idleLifetime: idleThreadLifetime)
        self.timeout = timeout
        self.queueLimit = queueLimit
        self.hostsFile = hostsFile
    }

    /// Resolver threads alive now (0 once idle for a while).
    var threadCount: Int { threads.threadCount }

    /// Whether `name` is answered from `/etc/hosts`, without a resolver thread.
    func isListedLocally(_ name: String) -> Bool { hostsFile().addresses(of: name) != nil }

    /// Resolves `name` on behalf of `client` (a bus unique name).
    func resolve(_ name: String, for client: String) async -> Answer {
        if let listed = hostsFile().addresses(of: name) { return .addresses(listed) }
        let outcome = OneShot<Answer>()
        return await withCheckedContinuation { (continuation: CheckedContinuation<Answer, Never>) in
            outcome.arm(continuation)
            outcome.limit(to: queueLimit, answering: .couldNotResolve("this client's earlier names still hold its turns"))
            threads.run(for: client) { [timeout] in
                guard !outcome.isDone else { return }
                outcome.limit(to: timeout, answering: .couldNotResolve("the resolver did not answer within \(timeout)"))
                outcome.resume(with: Self.lookUp(name))
            }
        }
    }

    /// glibc's EAI_NODATA (the name exists, with no address), which netdb.h
    /// declares only under _GNU_SOURCE and so Swift does not see.
    private static let glibcNoData: Int32 = -5

    private static func lookUp(_ name: String) -> Answer {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(name, nil, &hints, &list)
        guard status == 0 else {
            // EAI_NONAME and EAI_NODATA are the DNS's answer; the rest is no answer.
            if status == EAI_NONAME || status == Self.glibcNoData { return .noAddress }
            let message: UnsafePointer<CChar> = gai_strerror(status)
            return .couldNotResolve(String(cString: message))
        }
        defer { freeaddrinfo(list) }
        var addresses: [IPAddress] = []
        var entry = list
        while let current = entry?.pointee {
            if let address = Self.address(from: current), !addresses.contains(address) { addresses.append(address) }
            entry = current.ai_next
        }
        return addresses.isEmpty ? .noAddress : .addresses(addresses)
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

    /// Resumes with `fallback` once `timeout` has passed without an answer;
    /// replaces any earlier limit.
    func limit(to timeout: Duration, answering fallback: Value) {
        let timer = Task {
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            self.resume(with: fallback)
        }
        let (answered, earlier) = waiting.withLock { waiting in
            defer { waiting.timer = timer }
            return (waiting.continuation == nil, waiting.timer)
        }
        earlier?.cancel()
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
