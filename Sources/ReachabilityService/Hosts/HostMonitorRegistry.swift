import DBus
import Logging
import ReachabilityContract
import ReachabilityCore
import Synchronization

/// Every host monitor reachd serves, who owns each, and the caps.
///
/// A monitor belongs to the connection that made it and ends with a
/// `Release()` from that connection or when that connection leaves the bus.
/// After each network change every distinct host is evaluated once and each
/// monitor announces only a change of its own values.
final class HostMonitorRegistry: Sendable {
    struct Limits: Sendable {
        var perClient: Int
        var total: Int
    }

    private struct State {
        var monitors: [UInt64: HostMonitor] = [:]
        var countByOwner: [BusName: Int] = [:]
        /// Creations admitted against the caps but not exported yet.
        var reserved = 0
        var nextID: UInt64 = 1
        /// Owners seen leaving the bus, newest last: a creation that finishes
        /// after its owner left is released at once. Unique names are never
        /// reused, so a bounded memory of recent departures is enough.
        var departed: [BusName] = []
        var reevaluating = false
        var reevaluationPending = false
        /// Rounds whose route lookups got no answer from the kernel are retried;
        /// until then the monitors they left keep their last report.
        var backoff = RetryBackoff()
        var retryScheduled = false
    }

    private let state = Mutex(State())
    private let evaluator: HostEvaluator
    private let limits: Limits
    private let portal: @Sendable () -> Bool
    private let logger: Logger

    init(evaluator: HostEvaluator, limits: Limits, logger: Logger, portal: @escaping @Sendable () -> Bool) {
        self.evaluator = evaluator
        self.limits = limits
        self.logger = logger
        self.portal = portal
    }

    var count: Int { state.withLock { $0.monitors.count } }

    // MARK: Creating and releasing

    /// Makes a monitor for `host` owned by `owner`, exported on `session`.
    func create(host: HostSpecification, owner: BusName, session: Connection) async throws -> ObjectPath {
        let id = try reserve(for: owner)
        // Without an answer from the kernel the monitor starts Unknown (-1),
        // and the retried round gives it its first real report.
        let evaluated = try? await evaluate(host)
        let report = evaluated ?? .unknown
        let monitor = HostMonitor(id: id, host: host, owner: owner, report: report)
        do {
            try await session.export([monitor.declaration { [self] connection, call in
                try self.release(monitor, by: call.sender, on: connection)
                return []
            }], at: monitor.path)
        } catch {
            state.withLock { $0.reserved -= 1; $0.countByOwner[owner, default: 1] -= 1 }
            throw error
        }
        let ownerLeft = state.withLock { state -> Bool in
            state.reserved -= 1
            state.monitors[id] = monitor
            return state.departed.contains(owner)
        }
        if ownerLeft {
            await session.releaseMonitors(ownedBy: owner, registry: self)
        } else {
            await session.announceMonitorCount()
            if evaluated == nil { scheduleRetry(on: session) }
        }
        return monitor.path
    }

    private func reserve(for owner: BusName) throws(DBusError) -> UInt64 {
        let outcome = state.withLock { state -> Result<UInt64, DBusError> in
            let owned = state.countByOwner[owner, default: 0]
            guard owned < limits.perClient else {
                return .failure(ReachabilityContract.limitExceeded("this connection already holds \(owned) monitors, the most one client may hold; release some first"))
            }
            guard state.monitors.count + state.reserved < limits.total else {
                return .failure(ReachabilityContract.limitExceeded("reachd already serves \(limits.total) monitors, its limit"))
            }
            state.countByOwner[owner] = owned + 1
            state.reserved += 1
            defer { state.nextID += 1 }
            return .success(state.nextID)
        }
        return try outcome.get()
    }

    /// `Release()`: only the owner may release; the object goes at once.
    private func release(_ monitor: HostMonitor, by caller: BusName?, on connection: isolated Connection) throws {
        guard caller == monitor.owner else {
            throw ReachabilityContract.notOwner("monitor \(monitor.path) belongs to \(monitor.owner), not to \(caller?.rawValue ?? "an unknown sender")")
        }
        remove([monitor.id])
        connection.unexport(monitor.path)
        connection.announceMonitorCount()
    }

    /// Forgets monitors; returns those that were there.
    @discardableResult
    func remove(_ ids: [UInt64]) -> [HostMonitor] {
        state.withLock { state in
            ids.compactMap { id in
                guard let monitor = state.monitors.removeValue(forKey: id) else { return nil }
                state.countByOwner[monitor.owner, default: 1] -= 1
                if state.countByOwner[monitor.owner] == 0 { state.countByOwner[monitor.owner] = nil }
                return monitor
            }
        }
    }

    /// Remembers that `owner` left and returns the ids of what it held.
    func ownerLeft(_ owner: BusName) -> [UInt64] {
        state.withLock { state in
            state.departed.append(owner)
            if state.departed.count > 4096 { state.departed.removeFirst(state.departed.count - 4096) }
            return state.monitors.values.filter { $0.owner == owner }.map(\.id)
        }
    }

    // MARK: Evaluating

    /// A one-shot answer, as `CheckHost` gives it. A lookup the kernel does
    /// not answer is tried again a few times (100, 200, 400 ms); if it still
    /// gets no answer the caller hears `TryAgain`, never "not reachable".
    func check(_ host: HostSpecification) async throws(DBusError) -> HostReport {
        var backoff = RetryBackoff()
        while true {
            do {
                return try await evaluate(host)
            } catch {
                guard backoff.failures < 3, (try? await Task.sleep(for: backoff.next())) != nil else {
                    throw ReachabilityContract.tryAgain("reachd could not judge \(host.text): \(error); try again")
                }
            }
        }
    }

    private func evaluate(_ host: HostSpecification) async throws(RouteLookupFailure) -> HostReport {
        try await evaluator.report(for: host, portal: portal(), round: evaluator.startRound())
    }

    /// Re-evaluates every monitor after a network change. Changes that come
    /// while a round runs are folded into one more round after it.
    func reevaluate(on session: Connection) async {
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
            await reevaluateOnce(on: session)
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

    private func reevaluateOnce(on session: Connection) async {
        let monitors = state.withLock { Array($0.monitors.values) }
        guard !monitors.isEmpty else { return }
        let round: HostEvaluator.Round
        do {
            round = try evaluator.startRound()
        } catch {
            noteFailure(error, on: session)
            return
        }
        let portal = portal()
        let hosts = Set(monitors.map(\.host))
        var reports: [HostSpecification: HostReport] = [:]
        var failure: RouteLookupFailure?
        await withTaskGroup(of: (HostSpecification, Result<HostReport, RouteLookupFailure>).self) { group in
            for host in hosts {
                group.addTask { [evaluator] in
                    do throws(RouteLookupFailure) {
                        return (host, .success(try await evaluator.report(for: host, portal: portal, round: round)))
                    } catch {
                        return (host, .failure(error))
                    }
                }
            }
            for await (host, outcome) in group {
                switch outcome {
                case .success(let report): reports[host] = report
                case .failure(let error): failure = error
                }
            }
        }
        // Monitors whose host got no answer keep their last report.
        await session.publish(monitors.compactMap { monitor in reports[monitor.host].map { (monitor, $0) } })
        if let failure {
            noteFailure(failure, on: session)
        } else if state.withLock({ $0.backoff.reset() }) {
            logger.notice("route lookups for host monitors answer again")
        }
    }

    /// Logs the first failure of a streak and schedules one more round.
    private func noteFailure(_ error: RouteLookupFailure, on session: Connection) {
        let first = state.withLock { !$0.backoff.isFailing }
        if first { logger.warning("host monitors keep their last answer: \(error); retrying") }
        scheduleRetry(on: session)
    }

    private func scheduleRetry(on session: Connection) {
        let delay = state.withLock { state -> Duration? in
            guard !state.retryScheduled else { return nil }
            state.retryScheduled = true
            return state.backoff.next()
        }
        guard let delay else { return }
        Task {
            guard (try? await Task.sleep(for: delay)) != nil else { return }
            state.withLock { $0.retryScheduled = false }
            await reevaluate(on: session)
        }
    }
}

extension Connection {
    /// Announces each monitor's new report in one turn of the loop.
    func publish(_ updates: [(HostMonitor, HostReport)]) {
        for (monitor, report) in updates {
            try? monitor.publish(report, on: self)
        }
    }

    /// Releases everything `owner` held, after it left the bus.
    func releaseMonitors(ownedBy owner: BusName, registry: HostMonitorRegistry) {
        let released = registry.remove(registry.ownerLeft(owner))
        for monitor in released { unexport(monitor.path) }
        if !released.isEmpty { announceMonitorCount() }
    }

    func announceMonitorCount() {
        try? emitPropertiesChanged(path: ReachabilityContract.objectPath, interface: ReachabilityContract.interface,
                                   names: [ReachabilityContract.monitorCount])
    }
}
