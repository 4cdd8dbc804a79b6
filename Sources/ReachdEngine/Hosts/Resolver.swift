import Glibc
import Synchronization

/// Resolves DNS names with `getaddrinfo`, off every event loop, fairly between clients.
///
/// - Names in `/etc/hosts` (localhost above all) are answered at once, without a thread or a
///   place in the queue; address literals never reach the resolver at all (`HostEvaluator`).
/// - Other names wait their turn on `ResolverThreads`: round-robin between clients, at most
///   two lookups of one client on a thread at once, so one client's slow names cost other
///   clients nothing.
/// - A client (on the system bus, a user) may have `queuedLimit` capped lookups waiting
///   (`CheckHost`'s); one more is refused at once (`Refusal.queueFull`), so no user can make the
///   queue, and reachd's memory, as long as it likes. 256: twice the calls one connection may
///   have pending on the system bus (dbus-daemon's `max_replies_per_connection`, 128), so one
///   app's burst is never refused, and as many as two threads get through within the 20 s a
///   lookup may wait when each name answers within 150 ms; beyond that most would expire anyway.
///   Host monitors' lookups are not capped here: one per monitored name, and monitors are capped.
/// - A lookup waits at most `queueLimit` for its turn, and is dropped from the queue the moment
///   that passes or its caller leaves the bus (`callerLeft`).
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

    /// Why a capped lookup got no answer at all.
    enum Refusal: Error, Sendable, Equatable {
        /// The client already has this many lookups waiting.
        case queueFull(Int)
        /// Its caller left the bus while it waited.
        case callerLeft
    }

    /// Capped lookups one client may have waiting (see above for why 256).
    static let defaultQueuedLimit = 256

    private let threads: ResolverThreads
    private let timeout: Duration
    let queuedLimit: Int
    private let hostsFile: @Sendable () -> HostsFile
    private let lookUpName: @Sendable (String) -> Answer

    /// `timeout` bounds one running lookup; `queueLimit` bounds the wait for a turn, which only
    /// the same client's earlier names can make long. `releaseMemory` runs once the queue is
    /// empty after a flood (reachd: `malloc_trim`). `lookUp` asks the system (getaddrinfo) on a
    /// resolver thread.
    init(maximumThreads: Int = 8, perClientLimit: Int = 2, queuedLimit: Int = Resolver.defaultQueuedLimit,
         timeout: Duration = .seconds(5), queueLimit: Duration = .seconds(20), idleThreadLifetime: Duration = .seconds(10),
         releaseMemory: @escaping @Sendable () -> Void = MemoryRelease.giveBack,
         hostsFile: @escaping @Sendable () -> HostsFile = HostsFile.cachedLoader(),
         lookUp: @escaping @Sendable (String) -> Answer = Resolver.systemLookUp) {
        self.threads = ResolverThreads(maximum: maximumThreads, perClientLimit: perClientLimit, queuedLimit: queuedLimit,
                                       waitLimit: queueLimit, runLimit: timeout, idleLifetime: idleThreadLifetime,
                                       releaseMemory: releaseMemory)
        self.timeout = timeout
        self.queuedLimit = queuedLimit
        self.hostsFile = hostsFile
        self.lookUpName = lookUp
    }

    /// Resolver threads alive now (0 once idle for a while).
    var threadCount: Int { threads.threadCount }

    /// Lookups waiting for a thread now.
    var queuedCount: Int { threads.queuedCount }

    /// Whether `name` is answered from `/etc/hosts`, without a resolver thread.
    func isListedLocally(_ name: String) -> Bool { hostsFile().addresses(of: name) != nil }

    /// Resolves `name` on behalf of `client` (an account), uncapped: a host monitor's lookup, or
    /// reachd's own check's.
    func resolve(_ name: String, for client: String) async -> Answer {
        // Never refused: not capped, and no caller to leave.
        (try? await lookUp(name, for: client, caller: nil, capped: false).get()) ?? .couldNotResolve("refused")
    }

    /// Resolves `name` for `caller` (a bus connection), counted against `client` (its account)
    /// and under its cap: `CheckHost`'s lookup.
    func resolve(_ name: String, for client: String, caller: String) async throws(Refusal) -> Answer {
        try await lookUp(name, for: client, caller: caller, capped: true).get()
    }

    /// Whether `resolve(_:for:caller:)` would refuse `name` now (`Refusal.queueFull`): `client`
    /// has `queuedLimit` lookups waiting, and `name` is not in `/etc/hosts`. Asked without a task,
    /// so a flood beyond the cap costs what its refusal costs; a lookup asked for after a `false`
    /// is still capped.
    func wouldRefuse(_ name: String, for client: String) -> Bool {
        threads.isFull(for: client) && hostsFile().addresses(of: name) == nil
    }

    /// `caller` left the bus: its waiting lookups are dropped (they answer `.callerLeft`).
    func callerLeft(_ caller: String) {
        threads.callerLeft(caller)
    }

    private func lookUp(_ name: String, for client: String, caller: String?, capped: Bool) async -> Result<Answer, Refusal> {
        if let listed = hostsFile().addresses(of: name) { return .success(.addresses(listed)) }
        let outcome = OneShot<Result<Answer, Refusal>>()
        let timeout = timeout
        let lookUpName = lookUpName
        let job = ResolverThreads.Job(
            run: {
                guard !outcome.isDone else { return }
                outcome.resume(with: .success(lookUpName(name)))
            },
            dropped: { reason in
                switch reason {
                case .expired:
                    outcome.resume(with: .success(.couldNotResolve("this client's earlier names still hold its turns")))
                case .callerLeft:
                    outcome.resume(with: .failure(.callerLeft))
                }
            },
            timedOut: { outcome.resume(with: .success(.couldNotResolve("the resolver did not answer within \(timeout)"))) })
        return await withCheckedContinuation { (continuation: CheckedContinuation<Result<Answer, Refusal>, Never>) in
            outcome.arm(continuation)
            if !threads.run(for: client, caller: caller, capped: capped, job) {
                outcome.resume(with: .failure(.queueFull(queuedLimit)))
            }
        }
    }

    /// glibc's EAI_NODATA (the name exists, with no address), which netdb.h
    /// declares only under _GNU_SOURCE and so Swift does not see.
    private static let glibcNoData: Int32 = -5

    @Sendable static func systemLookUp(_ name: String) -> Answer {
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

/// A continuation resumed once, by whichever comes first: the answer, the timeout, the drop.
private final class OneShot<Value: Sendable>: Sendable {
    private let waiting = Mutex<CheckedContinuation<Value, Never>?>(nil)

    func arm(_ continuation: CheckedContinuation<Value, Never>) {
        waiting.withLock { $0 = continuation }
    }

    func resume(with value: Value) {
        waiting.withLock { waiting in
            defer { waiting = nil }
            return waiting
        }?.resume(returning: value)
    }

    /// Whether the answer (or the timeout, or the drop) has already been given.
    var isDone: Bool { waiting.withLock { $0 == nil } }
}
