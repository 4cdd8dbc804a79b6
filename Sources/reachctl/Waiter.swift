import Glibc
import Reachability

/// Runs one `reachctl wait`: reads reachd for the default route and for each `--host`
/// (activating reachd where installed), then waits for reachd's signals until the condition
/// holds (for `stable` on end), the deadline passes, or with `exitEarly` nothing is in
/// progress. Never polls reachd; a reachd that restarts is read afresh by the client library,
/// and the deadline stays.
struct Waiter {
    /// `--host NAME[:PORT]`.
    struct Host: Sendable {
        var name: String
        /// With a port, a TCP connection to it must succeed too; tried on each reachable answer
        /// and every 1, 2, 4 … 30 s while the host stays reachable.
        var port: UInt16?
    }

    let condition: WaitCondition
    let hosts: [Host]
    /// Seconds; 0 checks once, infinity never gives up.
    let timeout: Double
    let stable: Duration
    let exitEarly: Bool
    let quiet: Bool

    enum Ending {
        case satisfied
        case notSatisfied(String)
        case failed(ReachabilityError)
        case cannotEvaluate(String)
    }

    struct Report: JSONRepresentable {
        var satisfied: Bool
        var level: String
        var reason: String
        var elapsedMs: Int

        var jsonValue: JSONValue {
            .object(["satisfied": .bool(satisfied), "level": .string(level), "reason": .string(reason),
                     "elapsedMs": .number(elapsedMs)])
        }
    }

    struct Outcome {
        var ending: Ending
        var report: Report
    }

    private enum Event: Sendable {
        case update(Int, ReachabilityUpdate)
        case handshook(Int, Bool)
        case retryHandshake(Int)
        case heldLongEnough(Int)
        case deadline
    }

    /// What is known of one followed target: the default route (index 0 when followed) or a host.
    private struct Watch {
        let manager: NetworkReachabilityManager
        let host: Host?
        var last = ReachabilityUpdate.unknown
        var handshakeOK: Bool
        var shaking = false
        var retryDelay = Duration.seconds(1)

        init(manager: NetworkReachabilityManager, host: Host?) {
            self.manager = manager
            self.host = host
            handshakeOK = host?.port == nil
        }

        var isMet: Bool { last.isReachable && handshakeOK }
        var handshakePending: Bool { host?.port != nil && last.isReachable && !handshakeOK }
    }

    /// The default route is followed for a level or `-i` conditions; hosts each for themselves.
    private var followsDefaultRoute: Bool { hosts.isEmpty || !condition.interfaces.isEmpty }

    func wait() async -> Outcome {
        let started = ContinuousClock.now
        var watches: [Watch] = []
        if followsDefaultRoute { watches.append(Watch(manager: NetworkReachabilityManager(.defaultRoute), host: nil)) }
        for host in hosts {
            watches.append(Watch(manager: NetworkReachabilityManager(.init(host: host.name)), host: host))
        }
        func outcome(_ ending: Ending) -> Outcome {
            let satisfied = if case .satisfied = ending { true } else { false }
            let shown = NetworkPath(watches[0].last)
            let elapsed = ContinuousClock.now - started
            return Outcome(ending: ending, report: Report(
                satisfied: satisfied, level: shown.level.rawValue, reason: shown.unsatisfiedReason.rawValue,
                elapsedMs: Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)))
        }
        func isSatisfied() -> Bool {
            if hosts.isEmpty { return condition.isSatisfied(by: watches[0].last, forHost: false) }
            var results = watches.filter { $0.host != nil }.map(\.isMet)
            if followsDefaultRoute, !condition.interfaces.isEmpty {
                var path = NetworkPath(watches[0].last)
                path.availableInterfaces.removeAll { matchesAny($0.name, condition.ignore) }
                results += condition.interfaces.map { $0.isSatisfied(by: path) }
            }
            return condition.any ? results.contains(true) : !results.contains(false)
        }
        func reason() -> String {
            var parts: [String] = []
            if followsDefaultRoute { parts.append(condition.reason(watches[0].last, forHost: false)) }
            for watch in watches where watch.host != nil && !watch.isMet {
                let host = watch.host!
                parts.append(watch.last.isReachable
                    ? "no TCP connection to \(host.name):\(host.port ?? 0)"
                    : "host \(host.name) \(condition.reason(watch.last, forHost: true))")
            }
            return parts.joined(separator: "; ")
        }
        func deadlineLeft() -> Duration {
            timeout.isFinite ? started + .seconds(timeout) - .now : .seconds(5)
        }

        if timeout == 0 {
            for index in watches.indices {
                do {
                    watches[index].last = try await watches[index].manager.fetchUpdate()
                } catch {
                    return outcome(.failed(error))
                }
                if let host = watches[index].host, let port = host.port, watches[index].last.isReachable {
                    watches[index].handshakeOK = Self.shake(host.name, port, within: .seconds(5))
                }
            }
            if followsDefaultRoute, !condition.canBeSatisfied(by: watches[0].last) {
                return outcome(.cannotEvaluate(cannotEvaluateText))
            }
            return outcome(isSatisfied() ? .satisfied : .notSatisfied("not met now: \(reason())"))
        }

        let (events, sink) = AsyncStream.makeStream(of: Event.self)
        var tasks: [Task<Void, Never>] = []
        for (index, watch) in watches.enumerated() {
            let updates = watch.manager.updates
            tasks.append(Task { for await update in updates { sink.yield(.update(index, update)) } })
        }
        if timeout.isFinite {
            tasks.append(Task { [timeout] in
                guard (try? await Task.sleep(for: .seconds(timeout))) != nil else { return }
                sink.yield(.deadline)
            })
        }
        defer { tasks.forEach { $0.cancel() } }
        func startHandshake(_ index: Int) {
            guard let host = watches[index].host, let port = host.port, !watches[index].shaking else { return }
            watches[index].shaking = true
            let within = min(deadlineLeft(), .seconds(5))
            tasks.append(Task { sink.yield(.handshook(index, Self.shake(host.name, port, within: within))) })
        }

        var satisfiedStreak = 0  // counts streaks, so a stale timer of an earlier one is ignored
        var holding = false
        var announced: Bool?
        for await event in events {
            switch event {
            case .update(let index, let update):
                watches[index].last = update
                if update.status == .unknown, let error = watches[index].manager.lastError, !error.isServiceUnavailable {
                    return outcome(.failed(error))  // a refusal does not go away by waiting
                }
                if index == 0, followsDefaultRoute, !condition.canBeSatisfied(by: update) {
                    return outcome(.cannotEvaluate(cannotEvaluateText))
                }
                if !update.isReachable { watches[index].handshakeOK = watches[index].host?.port == nil }
                if watches[index].handshakePending { startHandshake(index) }
            case .handshook(let index, let ok):
                watches[index].shaking = false
                watches[index].handshakeOK = ok
                if !ok {
                    let delay = watches[index].retryDelay
                    watches[index].retryDelay = min(delay * 2, .seconds(30))
                    tasks.append(Task {
                        guard (try? await Task.sleep(for: delay)) != nil else { return }
                        sink.yield(.retryHandshake(index))
                    })
                    continue
                }
            case .retryHandshake(let index):
                if watches[index].handshakePending { startHandshake(index) }
                continue
            case .heldLongEnough(let streak):
                if holding && streak == satisfiedStreak { return outcome(.satisfied) }
                continue
            case .deadline:
                if let unreachable = watches.first(where: { $0.last.status == .unknown }),
                   let error = unreachable.manager.lastError, error.isServiceUnavailable {
                    return outcome(.failed(error))
                }
                return outcome(.notSatisfied("timed out after \(Self.text(timeout)) s: \(reason())"))
            }

            let satisfied = isSatisfied()
            let known = watches.contains { $0.last.status != .unknown }
            if satisfied != announced, known || announced != nil {
                announced = satisfied
                say(satisfied ? "condition met" : "waiting: \(reason())")
            }
            if satisfied {
                guard stable > .zero else { return outcome(.satisfied) }
                if !holding {
                    holding = true
                    satisfiedStreak += 1
                    let streak = satisfiedStreak
                    tasks.append(Task { [stable] in
                        guard (try? await Task.sleep(for: stable)) != nil else { return }
                        sink.yield(.heldLongEnough(streak))
                    })
                }
            } else {
                holding = false
                // In progress: a connection being made, a handshake still to be tried, or no answer yet.
                let inProgress = watches.contains {
                    $0.last.status == .unknown || $0.handshakePending
                        || NetworkPath($0.last).unsatisfiedReason == .connecting
                }
                if exitEarly, !inProgress {
                    return outcome(.notSatisfied("nothing is being connected: \(reason())"))
                }
            }
        }
        return outcome(.notSatisfied(reason()))
    }

    private var cannotEvaluateText: String {
        "--level online needs NetworkManager's connectivity check, and none runs here; use --level dns, or --host NAME"
    }

    /// One handshake, bounded by `within`.
    private static func shake(_ host: String, _ port: UInt16, within: Duration) -> Bool {
        let milliseconds = Int32(within.components.seconds * 1000 + within.components.attoseconds / 1_000_000_000_000_000)
        return TCPHandshake.succeeds(host: host, port: port, timeout: max(milliseconds, 1))
    }

    /// On a terminal, one line per change of the condition on standard error.
    private func say(_ text: String) {
        guard !quiet, isatty(STDERR_FILENO) == 1 else { return }
        Output.error(text)
    }

    private static func text(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
