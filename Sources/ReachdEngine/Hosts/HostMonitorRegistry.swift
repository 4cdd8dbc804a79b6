import ReachdDBus
import Logging
import ReachdContract
import ReachdCore
import Synchronization

/// Every host monitor the engine serves, who owns each, and the caps.
///
/// A monitor belongs to the owner that made it (reachd: a bus connection) and ends with a
/// `Release()` from that owner or when the owner leaves (`ownerLeft`).
/// Its place under the caps belongs to the owner's account: the connection itself on the
/// session bus, the connection's user on the system bus (`CallerPolicy.account(of:)`), so
/// one user's many connections share one allowance. The same account is the client whose
/// lookups take turns in the fair resolver.
/// After each network change every distinct host is evaluated once and each
/// monitor announces only a change of its own values.
package final class HostMonitorRegistry: Sendable {
    package struct Limits: Sendable {
        /// Monitors one account may hold.
        package var perClient: Int
        package var total: Int

        package init(perClient: Int, total: Int) {
            self.perClient = perClient
            self.total = total
        }
    }

    fileprivate struct State {
        var monitors: [UInt64: HostMonitor] = [:]
        var countByAccount: [String: Int] = [:]
        /// Creations admitted against the caps but not exported yet.
        var reserved = 0
        var nextID: UInt64 = 1
        /// Owners seen leaving the bus, newest last: a creation that finishes
        /// after its owner left is released at once. Unique names are never
        /// reused, so a bounded memory of recent departures is enough.
        var departed: [String] = []
        var reevaluating = false
        var reevaluationPending = false
        /// Rounds whose route lookups got no answer from the kernel are retried;
        /// until then the monitors they left keep their last report.
        var backoff = RetryBackoff()
        var retryScheduled = false
        /// Names being resolved now, and those to resolve once more after that.
        var resolving: Set<HostSpecification> = []
        var resolveAgain: Set<HostSpecification> = []
        /// Names whose last lookup got no answer, retried while the network is up.
        var resolutionRetries: [HostSpecification: RetryBackoff] = [:]
    }

    private let state = Mutex(State())
    private let evaluator: HostEvaluator
    private let limits: Limits
    private let portal: @Sendable () -> Bool
    private let networkIsUp: @Sendable () -> Bool
    private let logger: Logger
    private let sink: any HostMonitorSink

    /// `networkIsUp`: whether the network as a whole is routable, so that a name that got no
    /// answer is worth asking again without waiting for a network change. `sink`: where the
    /// monitors appear and their reports go.
    init(evaluator: HostEvaluator, limits: Limits, logger: Logger, sink: any HostMonitorSink,
         portal: @escaping @Sendable () -> Bool, networkIsUp: @escaping @Sendable () -> Bool = { true }) {
        self.evaluator = evaluator
        self.limits = limits
        self.logger = logger
        self.sink = sink
        self.portal = portal
        self.networkIsUp = networkIsUp
    }

    package var count: Int { state.withLock { $0.monitors.count } }

    /// The account monitor `id` counts against, nil when there is no such monitor.
    package func account(ofMonitor id: UInt64) -> String? {
        state.withLock { $0.monitors[id]?.account }
    }

    // MARK: Creating and releasing

    /// Makes a monitor for `host` owned by `owner`, attached to the sink.
    ///
    /// A host judged without waiting (an address literal, a name in
    /// /etc/hosts) is judged before the reply, so the object already has its
    /// answer. A name that needs DNS gets its object at once with Status -1
    /// (Unknown); its first answer follows as PropertiesChanged and
    /// ReachabilityChanged, so no client waits on another's slow names.
    package func create(host: HostSpecification, owner: String, account: String) async throws -> HostMonitor {
        let id = try reserve(for: account)
        // Without an answer (no route lookup answer, no resolver answer) the
        // monitor keeps Unknown (-1) until a later round gives it one.
        let evaluated = evaluator.answersAtOnce(host) ? try? await evaluate(host, for: account) : nil
        let report = evaluated ?? .unknown
        let monitor = HostMonitor(id: id, host: host, owner: owner, account: account, report: report)
        do {
            try await sink.attach(monitor, registry: self)
        } catch {
            state.withLock { $0.reserved -= 1; $0.release(account) }
            throw error
        }
        let ownerLeft = state.withLock { state -> Bool in
            state.reserved -= 1
            state.monitors[id] = monitor
            sink.countChangedAtOnce()
            return state.departed.contains(owner)
        }
        if ownerLeft {
            await self.ownerLeft(owner)
        } else {
            await sink.countChanged()
            if evaluated == nil {
                // Its first answer, as any later one, from the kernel and the resolver.
                do {
                    startResolving(host, account: account, round: try evaluator.startRound())
                } catch {
                    noteFailure(error)
                }
            }
        }
        return monitor
    }

    private func reserve(for account: String) throws(DBusError) -> UInt64 {
        let outcome = state.withLock { state -> Result<UInt64, DBusError> in
            let owned = state.countByAccount[account, default: 0]
            guard owned < limits.perClient else {
                let holder = account.hasPrefix("uid ") ? "this user (\(account)) already holds \(owned) monitors over all its connections, the most one user may hold"
                    : "this connection already holds \(owned) monitors, the most one client may hold"
                return .failure(ReachdContract.limitExceeded("\(holder); release some first"))
            }
            guard state.monitors.count + state.reserved < limits.total else {
                return .failure(ReachdContract.limitExceeded("reachd already serves \(limits.total) monitors, its limit"))
            }
            state.countByAccount[account] = owned + 1
            state.reserved += 1
            defer { state.nextID += 1 }
            return .success(state.nextID)
        }
        return try outcome.get()
    }

    /// `Release()`: only the owner may release. The caller takes the monitor away from its
    /// front end at once (reachd unexports the object on the thread that answers the call).
    package func release(_ monitor: HostMonitor, by caller: String?) throws(DBusError) {
        guard caller == monitor.owner else {
            throw ReachdContract.notOwner("monitor \(monitor.id) belongs to \(monitor.owner), not to \(caller ?? "an unknown sender")")
        }
        remove([monitor.id])
    }

    /// Forgets monitors; returns those that were there.
    @discardableResult
    func remove(_ ids: [UInt64]) -> [HostMonitor] {
        state.withLock { state in
            let removed = ids.compactMap { id -> HostMonitor? in
                guard let monitor = state.monitors.removeValue(forKey: id) else { return nil }
                state.release(monitor.account)
                return monitor
            }
            if !removed.isEmpty { sink.countChangedAtOnce() }
            return removed
        }
    }

    /// `owner` left: what it held goes, its waiting lookups are dropped, and a creation of its
    /// still under way is undone when it finishes.
    package func ownerLeft(_ owner: String) async {
        let ids = state.withLock { state in
            state.departed.append(owner)
            if state.departed.count > 4096 { state.departed.removeFirst(state.departed.count - 4096) }
            return state.monitors.values.filter { $0.owner == owner }.map(\.id)
        }
        // Its CheckHost lookups still waiting for a resolver thread go too: no one would hear them.
        evaluator.resolver.callerLeft(owner)
        let released = remove(ids)
        guard !released.isEmpty else { return }
        await sink.detach(released)
        await sink.countChanged()
    }

    // MARK: Evaluating

    /// A one-shot answer, as `CheckHost` gives it. A name is resolved first, for `caller` (the
    /// connection asking; its departure drops the lookup) and under `account`'s cap of waiting
    /// lookups (beyond it `LimitExceeded`, at once); an in-process caller (nil) has no one to
    /// share with and no cap. A lookup the kernel does not answer is tried again a few times
    /// (100, 200, 400 ms); if it still gets no answer the caller hears `TryAgain`, never
    /// "not reachable".
    package func check(_ host: HostSpecification, for account: String, caller: String? = nil) async throws(DBusError) -> HostReport {
        let resolved: HostEvaluator.Resolved
        if let caller {
            do {
                resolved = try await evaluator.addresses(of: host, client: account, caller: caller)
            } catch {
                throw Self.error(for: error, account: account)
            }
        } else {
            resolved = switch host {
            case .address(let address): .init(addresses: [address], couldNotResolve: false)
            case .name(let name): .init(await evaluator.resolver.resolve(name, for: account))
            }
        }
        var backoff = RetryBackoff()
        while true {
            do {
                return try evaluator.judge(resolved, portal: portal(), round: evaluator.startRound())
            } catch {
                guard backoff.failures < 3,
                      (try? await Task.sleep(for: backoff.next())) != nil else {
                    throw ReachdContract.tryAgain("reachd could not judge \(host.text): \(error); try again")
                }
            }
        }
    }

    /// Throws what `check` would answer `host` with, `LimitExceeded`, when it is a name `account`
    /// has no room left to wait for; returns otherwise. Cheap and synchronous: it runs on the
    /// connection's thread for each `CheckHost`, before any task is made for the call.
    package func refuseIfNoRoom(_ host: HostSpecification, for account: String) throws(DBusError) {
        guard case .name(let name) = host, evaluator.resolver.wouldRefuse(name, for: account) else { return }
        throw Self.error(for: .queueFull(evaluator.resolver.queuedLimit), account: account)
    }

    private static func error(for refusal: Resolver.Refusal, account: String) -> DBusError {
        switch refusal {
        case .queueFull(let limit):
            // Short on purpose: under a flood the bus reads reachd's replies at most 4 KiB a turn
            // (dbus-daemon's max_bytes_read_per_iteration, 2 KiB, read twice), and every call
            // still waiting for its reply costs the bus a step for each call and reply it handles.
            // The error's name says what happened; the sentence says whose cap it is.
            let holder = account.hasPrefix("uid ") ? account : "this connection"
            return ReachdContract.limitExceeded("\(holder) has \(limit) names waiting (the cap)")
        case .callerLeft:
            return ReachdContract.tryAgain("the caller left the bus before its name was resolved")
        }
    }

    private func evaluate(_ host: HostSpecification, for account: String) async throws(HostEvaluationFailure) -> HostReport {
        try await evaluator.report(for: host, client: account, portal: portal(), round: evaluator.startRound())
    }

    /// Re-evaluates every monitor after a network change. Changes that come
    /// while a round runs are folded into one more round after it.
    func reevaluate() async {
        let start = state.withLock { state -> Bool in
            if state.reevaluating {
                state.reevaluationPending = true
                return false
            }
            state.reevaluating = true
            return true
        }
        guard start else { return }
        while true {
            await reevaluateOnce()
            let again = state.withLock { state -> Bool in
                if state.reevaluationPending {
                    state.reevaluationPending = false
                    return true
                }
                state.reevaluating = false
                return false
            }
            if !again { return }
        }
    }

    /// Hosts judged at once (literals, /etc/hosts names) are evaluated in the
    /// round, and their monitors' changes are sent in batches of `publishBatch`
    /// as the round goes on: the first signals are on their way to the bus while
    /// the rest are looked up, and each report goes straight to its host's
    /// monitors instead of through a second table keyed by host.
    /// Names that need DNS are resolved each on its own (`resolveAndPublish`),
    /// so a slow name holds up neither the round nor the next one: only itself.
    private func reevaluateOnce() async {
        let monitors = state.withLock { Array($0.monitors.values) }
        guard !monitors.isEmpty else { return }
        let round: HostEvaluator.Round
        do {
            round = try evaluator.startRound()
        } catch {
            noteFailure(error)
            return
        }
        let portal = portal()
        // Each distinct host once, its lookups counted against one of its owners.
        let holders = Dictionary(grouping: monitors, by: \.host)
        var batch: [(HostMonitor, HostReport)] = []
        batch.reserveCapacity(Self.publishBatch)
        var failure: HostEvaluationFailure?
        for (host, monitorsOfHost) in holders {
            guard evaluator.answersAtOnce(host) else {
                startResolving(host, account: monitorsOfHost[0].account, round: round)
                continue
            }
            do {
                let report = try await evaluator.report(for: host, client: monitorsOfHost[0].account, portal: portal, round: round)
                batch.append(contentsOf: monitorsOfHost.lazy.map { ($0, report) })
            } catch {
                // Monitors whose host got no answer keep their last report.
                failure = error
            }
            if batch.count >= Self.publishBatch {
                await sink.publish(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { await sink.publish(batch) }
        if let failure {
            noteFailure(failure)
        } else if state.withLock({ $0.backoff.reset() }) {
            logger.notice("every host monitor has an answer again")
        }
    }

    /// Monitors whose changes are sent together during a round: large enough that a hop to
    /// the front end (reachd's bus connection's loop) is rare, small enough that it starts early.
    private static let publishBatch = 256

    /// Resolves `host` and publishes its monitors' new report, unless it is
    /// being resolved already: then once more after that lookup, so each name
    /// has at most one lookup queued or running however often the network changes.
    private func startResolving(_ host: HostSpecification, account: String, round: HostEvaluator.Round) {
        let start = state.withLock { state -> Bool in
            if state.resolving.contains(host) {
                state.resolveAgain.insert(host)
                return false
            }
            state.resolving.insert(host)
            return true
        }
        guard start else { return }
        Task { await resolveAndPublish(host, account: account, round: round) }
    }

    private func resolveAndPublish(_ host: HostSpecification, account: String, round: HostEvaluator.Round) async {
        var round = round
        while true {
            do {
                let evaluation = try await evaluator.evaluate(host, client: account, portal: portal(), round: round)
                let holders = state.withLock { $0.monitors.values.filter { $0.host == host } }
                if !holders.isEmpty { await sink.publish(holders.map { ($0, evaluation.report) }) }
                if evaluation.couldNotResolve, !holders.isEmpty, networkIsUp() {
                    scheduleResolutionRetry(host, account: account)
                } else {
                    state.withLock { _ = $0.resolutionRetries.removeValue(forKey: host) }
                }
            } catch {
                noteFailure(error)
            }
            let again = state.withLock { state -> Bool in
                if state.resolveAgain.remove(host) != nil { return true }
                state.resolving.remove(host)
                return false
            }
            guard again else { return }
            if let fresh = try? evaluator.startRound() { round = fresh }
        }
    }

    /// A name that got no answer (a timeout, a failing server) is asked again after 2, 4, 8 …
    /// 60 s while the network is up, so it comes back without waiting for a network change
    /// (a DNS server restarted, a resume whose first lookups failed).
    private func scheduleResolutionRetry(_ host: HostSpecification, account: String) {
        let delay = state.withLock { state -> Duration in
            var backoff = state.resolutionRetries[host] ?? RetryBackoff(first: .seconds(2), limit: .seconds(60))
            defer { state.resolutionRetries[host] = backoff }
            return backoff.next()
        }
        Task {
            guard (try? await Task.sleep(for: delay)) != nil else { return }
            let stillMonitored = state.withLock { state in state.monitors.values.contains { $0.host == host } }
            guard stillMonitored, networkIsUp(), let round = try? evaluator.startRound() else { return }
            startResolving(host, account: account, round: round)
        }
    }

    /// Logs the first failure of a streak and schedules one more round.
    private func noteFailure(_ error: HostEvaluationFailure) {
        let first = state.withLock { !$0.backoff.isFailing }
        if first { logger.warning("host monitors keep their last answer: \(error); retrying") }
        scheduleRetry()
    }

    private func scheduleRetry() {
        let delay = state.withLock { state -> Duration? in
            guard !state.retryScheduled else { return nil }
            state.retryScheduled = true
            return state.backoff.next()
        }
        guard let delay else { return }
        Task {
            guard (try? await Task.sleep(for: delay)) != nil else { return }
            state.withLock { $0.retryScheduled = false }
            await reevaluate()
        }
    }
}

extension HostMonitorRegistry.State {
    /// One monitor of `account` is gone (or was never made).
    fileprivate mutating func release(_ account: String) {
        let count = countByAccount[account, default: 1] - 1
        countByAccount[account] = count > 0 ? count : nil
    }
}
