import ReachdEventLoops
import Glibc
import Logging
import ReachdCore

/// What reachd's own check is run over: each family's usable path (the deciding path's
/// interface, gateway and source address), whether NetworkManager checks itself, and how many
/// resumes there have been. The change merger says it after every evaluation.
struct CheckPaths: Sendable, Hashable {
    struct Route: Sendable, Hashable {
        var interface: String
        var gateway: String?
        var source: String?

        init?(_ path: KernelPath) {
            guard path.isUsable, let route = path.route else { return nil }
            interface = route.outgoingInterface
            gateway = path.gateway
            source = path.source
        }
    }

    var ipv4: Route?
    var ipv6: Route?
    /// NetworkManager's own check is enabled and available: reachd never probes then.
    var networkManagerChecks = false
    /// Counts resumes from sleep: each one is a reason to check again.
    var resumes = 0

    /// The paths a verdict is for: a verdict is applied only while they are the same.
    var key: PathKey { PathKey(ipv4: ipv4, ipv6: ipv6) }

    struct PathKey: Sendable, Hashable {
        var ipv4: Route?
        var ipv6: Route?
        var isEmpty: Bool { ipv4 == nil && ipv6 == nil }
    }
}

/// reachd's own connectivity check (contract 3, §2.2), for machines where nobody else checks:
/// plain HTTP per family with a path, through the fair resolver, on reachd's one event loop.
///
/// When: once the path exists; at once on every change of a path (interface, gateway, source
/// address, family); every `interval` while there is a path; after `limited` or `portal` again at
/// 2, 4, 8 … up to `interval` seconds; on `CheckConnectivity()`; after a resume. Never while
/// there is no path, and never while NetworkManager's own check is enabled and available.
///
/// One round at a time, and in it at most one probe per family: a new round cancels the round in
/// flight (its paths are gone, or a resume makes it stale) and waits for its end before probing. The families' verdicts combine as
/// NetworkManager combines its devices' and families': the best counts (full, then portal, then
/// limited), so an IPv6 path that answers is not hidden by a broken IPv4 one.
actor ReachdConnectivityCheck {
    typealias Report = @Sendable (CheckPaths.PathKey, ConnectivityCheckResult) async -> Void

    private let loop: EventLoop
    private let configuration: ConnectivityCheckConfiguration
    private let resolver: Resolver
    private let logger: Logger
    private let report: Report

    private var paths = CheckPaths()
    private var round: Task<ConnectivityCheckResult?, Never>?
    private var next: Task<Void, Never>?
    /// Failed rounds in a row (limited or portal), for the back-off.
    private var failures = 0
    /// The last verdict, so that the log says a verdict once, not every interval.
    private var lastVerdict: ConnectivityCheckResult.Verdict?

    /// The resolver's client name for the check's lookups.
    static let resolverClient = "reachd:connectivity-check"

    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    init(loop: EventLoop, configuration: ConnectivityCheckConfiguration, resolver: Resolver, logger: Logger,
         report: @escaping Report) {
        self.loop = loop
        self.configuration = configuration
        self.resolver = resolver
        self.logger = logger
        self.report = report
    }

    /// Follows the merger's paths until the stream ends.
    func follow(_ updates: AsyncStream<CheckPaths>) async {
        for await update in updates { take(update) }
        stop()
    }

    /// Whether a check could run now (there is a path and NetworkManager does not check).
    var canCheck: Bool { !paths.networkManagerChecks && !paths.key.isEmpty }

    /// `CheckConnectivity()`: joins the round in flight or runs one now; the verdict, or
    /// `none` when there is no path to check over.
    func checkNow() async -> Connectivity {
        guard canCheck else { return .none }
        let task = round ?? startRound(reason: "CheckConnectivity()")
        guard let result = await task.value else { return .unknown }
        return Connectivity(rawValue: result.verdict.rawValue) ?? .unknown
    }

    func stop() {
        next?.cancel()
        next = nil
        round?.cancel()
        round = nil
    }

    private func take(_ update: CheckPaths) {
        let old = paths
        paths = update
        guard canCheck else {
            if round != nil || next != nil {
                logger.debug("connectivity check: \(update.networkManagerChecks ? "NetworkManager checks itself" : "no path"); not checking")
            }
            stop()
            failures = 0
            return
        }
        let reason: String? = if old.key != update.key {
            "the path changed"
        } else if old.networkManagerChecks {
            "NetworkManager's check went off"
        } else if old.resumes != update.resumes {
            "resume"
        } else {
            nil
        }
        guard let reason else { return }
        failures = 0
        startRound(reason: reason)
    }

    @discardableResult
    private func startRound(reason: String) -> Task<ConnectivityCheckResult?, Never> {
        next?.cancel()
        next = nil
        let previous = round
        previous?.cancel()
        let key = paths.key
        let task = Task { [paths, configuration, resolver, loop, logger] () -> ConnectivityCheckResult? in
            // The round before ends first (cancelled, it ends at once): never two probes of a family.
            _ = await previous?.value
            guard !Task.isCancelled else { return nil }
            logger.debug("connectivity check: probing \(configuration.uri) (\(reason))")
            let result = await Self.probe(paths, configuration: configuration, resolver: resolver, loop: loop, logger: logger)
            return Task.isCancelled ? nil : result
        }
        round = task
        Task {
            guard let result = await task.value else { return }
            await finished(task, key: key, result: result)
        }
        return task
    }

    private func finished(_ task: Task<ConnectivityCheckResult?, Never>, key: CheckPaths.PathKey,
                          result: ConnectivityCheckResult) async {
        guard round == task else { return }
        round = nil
        failures = result.verdict == .full ? 0 : failures + 1
        let line = "connectivity check of \(configuration.uri): \(result.verdict.rawValue)\(result.httpStatus.map { " (HTTP \($0))" } ?? "")\(result.verdict == .portal ? ", log in at \(result.portalURL)" : "")"
        if result.verdict != lastVerdict { logger.info("\(line)") } else { logger.debug("\(line)") }
        lastVerdict = result.verdict
        await report(key, result)
        scheduleNext()
    }

    /// The next round: `interval` after full, 2, 4, 8 … up to `interval` s after a failure.
    private func scheduleNext() {
        next?.cancel()
        next = nil
        guard canCheck, configuration.interval > .zero else { return }
        var delay = configuration.interval
        if failures > 0 {
            let backoff = Duration.seconds(1 << min(failures, 20))
            delay = min(backoff, configuration.interval)
        }
        next = Task {
            guard (try? await Task.sleep(for: delay)) != nil else { return }
            self.timerFired()
        }
    }

    private func timerFired() {
        next = nil
        guard canCheck, round == nil else { return }
        startRound(reason: failures > 0 ? "again after \(failures) failed" : "interval")
    }

    // MARK: One round

    private static func probe(_ paths: CheckPaths, configuration: ConnectivityCheckConfiguration, resolver: Resolver,
                              loop: EventLoop, logger: Logger) async -> ConnectivityCheckResult {
        let deadline = ContinuousClock.now + configuration.timeout
        func result(_ verdict: ConnectivityCheckResult.Verdict, _ status: Int? = nil, location: String? = nil) -> ConnectivityCheckResult {
            ConnectivityCheckResult(verdict: verdict, uri: configuration.uri, httpStatus: status.map { UInt32($0) },
                                    portalURL: location.map(configuration.absolute) ?? "",
                                    finishedMicroseconds: monotonicMicroseconds())
        }
        let addresses: [IPAddress]
        if let literal = IPAddress(strict: configuration.host) {
            addresses = [literal]
        } else {
            switch await resolve(configuration.host, resolver: resolver, deadline: deadline) {
            case .addresses(let found): addresses = found
            case .noAddress:
                logger.info("connectivity check: \(configuration.host) has no address")
                return result(.limited)
            case .couldNotResolve(let why):
                logger.info("connectivity check: \(configuration.host) did not resolve: \(why)")
                return result(.limited)
            }
        }
        var families: [(IPAddress.Family, CheckPaths.Route)] = []
        if let route = paths.ipv4 { families.append((.v4, route)) }
        if let route = paths.ipv6 { families.append((.v6, route)) }
        let outcomes = await withTaskGroup(of: ConnectivityCheckResult?.self) { group in
            for (family, route) in families {
                guard let address = addresses.first(where: { $0.family == family }) else { continue }
                group.addTask {
                    let source = route.source.flatMap { IPAddress(strict: $0) }
                    let outcome = await HTTPProbe(loop: loop).exchange(
                        configuration.request, with: address, port: configuration.port, from: source, deadline: deadline)
                    switch outcome {
                    case .failed(let why):
                        logger.debug("connectivity check over \(route.interface) to \(address): \(why)")
                        return result(.limited)
                    case .answered(let bytes):
                        guard let answer = CheckAnswer(bytes) else {
                            logger.debug("connectivity check over \(route.interface) to \(address): not an HTTP answer")
                            return result(.limited)
                        }
                        let (verdict, location) = answer.verdict(expecting: configuration.response)
                        return result(verdict, answer.status, location: location)
                    }
                }
            }
            var best: ConnectivityCheckResult?
            for await outcome in group {
                guard let outcome else { continue }
                if best == nil || best!.verdict.better(outcome.verdict) != best!.verdict {
                    best = outcome
                }
            }
            return best
        }
        // No family with a path has an address of the name: the Internet did not answer for us.
        return outcomes ?? result(.limited)
    }

    /// The resolver's answer, or no answer once the deadline passes (the lookup itself cannot be
    /// cancelled; it finishes on its thread and is dropped).
    private static func resolve(_ name: String, resolver: Resolver, deadline: ContinuousClock.Instant) async -> Resolver.Answer {
        let race = AnswerRace()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                race.arm(continuation)
                let sleeper = Task {
                    guard (try? await Task.sleep(until: deadline)) != nil else { return }
                    race.resume(.couldNotResolve("no answer within the check's timeout"))
                }
                Task {
                    let answer = await resolver.resolve(name, for: resolverClient)
                    sleeper.cancel()
                    race.resume(answer)
                }
            }
        } onCancel: {
            race.resume(.couldNotResolve("cancelled"))
        }
    }

    private static func monotonicMicroseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000 + UInt64(time.tv_nsec) / 1_000
    }
}

import Synchronization

/// A continuation resumed by the first of several answers, even one given before it is armed.
private final class AnswerRace: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<Resolver.Answer, Never>)
        case answered(Resolver.Answer)
        case done
    }

    private let state = Mutex(State.idle)

    func arm(_ continuation: CheckedContinuation<Resolver.Answer, Never>) {
        let early: Resolver.Answer? = state.withLock { state in
            if case .answered(let answer) = state {
                state = .done
                return answer
            }
            state = .waiting(continuation)
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    func resume(_ answer: Resolver.Answer) {
        let continuation: CheckedContinuation<Resolver.Answer, Never>? = state.withLock { state in
            switch state {
            case .idle:
                state = .answered(answer)
                return nil
            case .waiting(let continuation):
                state = .done
                return continuation
            case .answered, .done:
                return nil
            }
        }
        continuation?.resume(returning: answer)
    }
}
