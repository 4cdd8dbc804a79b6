import Glibc
import Reachability

/// Runs one `reachctl wait`: reads reachd (activating it where installed), then waits for
/// its signals until the condition holds (for `stable` on end), the deadline passes, or
/// with `exitEarly` nothing is in progress. Never polls reachd; a reachd that restarts is
/// read afresh by the client library, and the deadline stays.
struct Waiter {
    let condition: WaitCondition
    let forHost: Bool
    /// Seconds; 0 checks once, infinity never gives up.
    let timeout: Double
    let stable: Duration
    let exitEarly: Bool
    let quiet: Bool
    /// `--host NAME:PORT`: besides the host being reachable, a TCP connection to the port must
    /// succeed; tried on each reachable answer and every 1, 2, 4 … 30 s while it stays reachable.
    var handshake: (host: String, port: UInt16)?

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
        case update(ReachabilityUpdate)
        case deadline
        case heldLongEnough(Int)
        case handshook(Bool)
        case retryHandshake
    }

    /// One handshake, bounded by 5 s and the time left.
    private func shake(timeLeft: Duration) -> Bool {
        guard let handshake else { return true }
        let bound = min(timeLeft, .seconds(5))
        let milliseconds = Int32(bound.components.seconds * 1000 + bound.components.attoseconds / 1_000_000_000_000_000)
        return TCPHandshake.succeeds(host: handshake.host, port: handshake.port, timeout: max(milliseconds, 1))
    }

    func wait(on manager: NetworkReachabilityManager) async -> Outcome {
        let started = ContinuousClock.now
        var last = ReachabilityUpdate.unknown
        func outcome(_ ending: Ending) -> Outcome {
            let satisfied = if case .satisfied = ending { true } else { false }
            let elapsed = ContinuousClock.now - started
            return Outcome(ending: ending, report: Report(
                satisfied: satisfied, level: NetworkPath(last).level.rawValue,
                reason: NetworkPath(last).unsatisfiedReason.rawValue,
                elapsedMs: Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)))
        }

        if timeout == 0 {
            do {
                last = try await manager.fetchUpdate()
            } catch {
                return outcome(.failed(error))
            }
            if !condition.canBeSatisfied(by: last) { return outcome(.cannotEvaluate(cannotEvaluateText)) }
            guard condition.isSatisfied(by: last, forHost: forHost) else {
                return outcome(.notSatisfied("not reachable now: \(condition.reason(last, forHost: forHost))"))
            }
            return outcome(shake(timeLeft: .seconds(5)) ? .satisfied : .notSatisfied("no TCP connection to the port now"))
        }

        let (events, sink) = AsyncStream.makeStream(of: Event.self)
        let updates = manager.updates
        var tasks = [Task { for await update in updates { sink.yield(.update(update)) } }]
        if timeout.isFinite {
            tasks.append(Task { [timeout] in
                guard (try? await Task.sleep(for: .seconds(timeout))) != nil else { return }
                sink.yield(.deadline)
            })
        }
        defer { tasks.forEach { $0.cancel() } }

        var satisfiedStreak = 0  // counts streaks, so a stale timer of an earlier one is ignored
        var holding = false
        var announced: Bool?
        var handshakeOK = handshake == nil
        var shaking = false
        var retryDelay = Duration.seconds(1)
        let deadline = timeout.isFinite ? started + .seconds(timeout) : nil
        func startHandshake() {
            guard handshake != nil, !shaking else { return }
            shaking = true
            let left = deadline.map { $0 - .now } ?? .seconds(5)
            tasks.append(Task { [self] in sink.yield(.handshook(self.shake(timeLeft: left))) })
        }
        for await event in events {
            var update = last
            switch event {
            case .update(let new):
                update = new
                last = new
                if new.status == .unknown, let error = manager.lastError, !error.isServiceUnavailable {
                    return outcome(.failed(error))  // a refusal does not go away by waiting
                }
                if !condition.canBeSatisfied(by: new) { return outcome(.cannotEvaluate(cannotEvaluateText)) }
                if !new.isReachable { handshakeOK = handshake == nil }
                if handshake != nil, new.isReachable, !handshakeOK { startHandshake() }
            case .handshook(let ok):
                shaking = false
                handshakeOK = ok
                if !ok {
                    let delay = retryDelay
                    retryDelay = min(retryDelay * 2, .seconds(30))
                    tasks.append(Task {
                        guard (try? await Task.sleep(for: delay)) != nil else { return }
                        sink.yield(.retryHandshake)
                    })
                    continue
                }
            case .retryHandshake:
                if last.isReachable, !handshakeOK { startHandshake() }
                continue
            case .heldLongEnough(let streak):
                if holding && streak == satisfiedStreak { return outcome(.satisfied) }
                continue
            case .deadline:
                if last.status == .unknown, let error = manager.lastError, error.isServiceUnavailable {
                    return outcome(.failed(error))
                }
                let port = handshake != nil && last.isReachable && !handshakeOK ? " (no TCP connection to the port)" : ""
                return outcome(.notSatisfied("timed out after \(Self.text(timeout)) s: \(condition.reason(last, forHost: forHost))\(port)"))
            }
            do {
                let satisfied = condition.isSatisfied(by: update, forHost: forHost) && handshakeOK
                if satisfied != announced, update.status != .unknown || announced != nil {
                    announced = satisfied
                    say(satisfied ? "condition met" : "waiting: \(condition.reason(update, forHost: forHost))")
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
                    // A handshake still to be tried is something in progress, too.
                    let handshakePending = handshake != nil && update.isReachable
                    if exitEarly, !handshakePending, update.status != .unknown, NetworkPath(update).unsatisfiedReason != .connecting {
                        return outcome(.notSatisfied("nothing is being connected: \(condition.reason(update, forHost: forHost))"))
                    }
                }
            }
        }
        return outcome(.notSatisfied(condition.reason(last, forHost: forHost)))
    }

    private var cannotEvaluateText: String {
        "--level online needs NetworkManager's connectivity check, and none runs here; use --level dns, or --host NAME"
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
