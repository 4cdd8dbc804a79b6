import Glibc
import ReachdKit

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
    /// Zero checks once; nil never gives up. At most a year (Seconds.range).
    let timeout: Duration?
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
        /// Who answered: `session`, `system` or `in-process`; left out while nobody did.
        var service: String?

        var jsonValue: JSONValue {
            var fields: [String: JSONValue] = ["satisfied": .bool(satisfied), "level": .string(level), "reason": .string(reason),
                                               "elapsedMs": .number(elapsedMs)]
            if let service { fields["service"] = .string(service) }
            return .object(fields)
        }
    }

    struct Outcome {
        var ending: Ending
        var report: Report
    }

    private enum Event: Sendable {
        case update(Int, ReachabilityUpdate)
        case handshook(Int, TCPHandshake.Outcome)
        case looked(Int, NameLookup.Answer)
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
        /// Why the last handshake failed.
        var handshakeFailure: String?
        var shaking = false
        var retryDelay = Duration.seconds(1)
        /// reachctl's own lookup of the name while reachd calls the host not reachable: whether
        /// it resolves (so the cause is the route) or not.
        var lookup: NameLookup.Answer?
        var looking = false

        init(manager: NetworkReachabilityManager, host: Host?) {
            self.manager = manager
            self.host = host
            handshakeOK = host?.port == nil
        }

        var isMet: Bool { last.isReachable && handshakeOK }
        var handshakePending: Bool { host?.port != nil && last.isReachable && !handshakeOK }

        /// Why this host is not met, for the line printed on failure.
        var reason: String {
            guard let host else { return "" }
            if last.isReachable {
                let address = host.name.contains(":") ? "[\(host.name)]" : host.name
                return "no TCP connection to \(address):\(host.port ?? 0)" + (handshakeFailure.map { ": \($0)" } ?? " (still trying)")
            }
            let cause = HostCause(update: last, isAddressLiteral: NameLookup.isAddressLiteral(host.name), lookup: lookup)
            return "host \(host.name) not reached: \(cause.text)"
        }
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
                elapsedMs: Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000),
                service: watches.lazy.compactMap(\.last.service).first?.rawValue))
        }
        func isSatisfied() -> Bool {
            if hosts.isEmpty { return condition.isSatisfied(by: watches[0].last) }
            var results = watches.filter { $0.host != nil }.map(\.isMet)
            if followsDefaultRoute, !condition.interfaces.isEmpty {
                var path = NetworkPath(watches[0].last)
                path.availableInterfaces.removeAll { matchesAny($0.name, condition.ignore) }
                results += condition.interfaces.map {
                    $0.isSatisfied(by: path, networkdOnline: watches[0].last.networkdLinkOnlineStates)
                }
            }
            return condition.any ? results.contains(true) : !results.contains(false)
        }
        func reason() -> String {
            var parts: [String] = []
            if followsDefaultRoute { parts.append(condition.reason(watches[0].last)) }
            for watch in watches where watch.host != nil && !watch.isMet {
                parts.append(watch.reason)
            }
            return parts.joined(separator: "; ")
        }
        func deadlineLeft() -> Duration {
            timeout.map { started + $0 - .now } ?? .seconds(5)
        }

        if timeout == .zero {
            for index in watches.indices {
                do {
                    watches[index].last = try await watches[index].manager.fetchUpdate()
                    if !quiet { PassedOver.say(watches[index].last) }
                } catch {
                    return outcome(.failed(error))
                }
                guard let host = watches[index].host else { continue }
                if let port = host.port, watches[index].last.isReachable {
                    let outcome = await Self.shake(host.name, port, within: .seconds(5))
                    watches[index].handshakeOK = outcome == .connected
                    if case .failed(let why) = outcome { watches[index].handshakeFailure = why }
                }
                if HostCause.needsLookup(watches[index].last, name: host.name) {
                    watches[index].lookup = await runBlocking(within: .seconds(5)) { NameLookup.lookUp(host.name) }
                }
            }
            if followsDefaultRoute, !condition.canBeSatisfied(by: watches[0].last) {
                return outcome(.cannotEvaluate(cannotEvaluateText(watches[0].last)))
            }
            return outcome(isSatisfied() ? .satisfied : .notSatisfied("not met now: \(reason())"))
        }

        let (events, sink) = AsyncStream.makeStream(of: Event.self)
        var tasks: [Task<Void, Never>] = []
        for (index, watch) in watches.enumerated() {
            let updates = watch.manager.updates
            tasks.append(Task { for await update in updates { sink.yield(.update(index, update)) } })
        }
        if let timeout {
            tasks.append(Task {
                guard (try? await Task.sleep(for: timeout)) != nil else { return }
                sink.yield(.deadline)
            })
        }
        defer { tasks.forEach { $0.cancel() } }
        func startHandshake(_ index: Int) {
            guard let host = watches[index].host, let port = host.port, !watches[index].shaking else { return }
            watches[index].shaking = true
            let within = min(deadlineLeft(), .seconds(5))
            tasks.append(Task { sink.yield(.handshook(index, await Self.shake(host.name, port, within: within))) })
        }
        func startLookup(_ index: Int) {
            // Not while reachd's own first answer is pending (Unknown): in the usual case it is
            // reachable, and a second lookup of the name would be wasted.
            guard let name = watches[index].host?.name, !watches[index].looking, watches[index].lookup == nil,
                  watches[index].last.status != .unknown, HostCause.needsLookup(watches[index].last, name: name) else { return }
            watches[index].looking = true
            tasks.append(Task {
                sink.yield(.looked(index, await runBlocking { NameLookup.lookUp(name) }))
            })
        }

        var satisfiedStreak = 0  // counts streaks, so a stale timer of an earlier one is ignored
        var holding = false
        // When the current streak began: at the deadline, how long it held of --stable.
        var holdingSince = ContinuousClock.now
        var announced: Bool?
        for await event in events {
            switch event {
            case .update(let index, let update):
                watches[index].last = update
                if !quiet { PassedOver.say(update) }
                if update.status == .unknown, let error = watches[index].manager.lastError, !error.isServiceUnavailable {
                    return outcome(.failed(error))  // a refusal does not go away by waiting
                }
                if index == 0, followsDefaultRoute, !condition.canBeSatisfied(by: update) {
                    return outcome(.cannotEvaluate(cannotEvaluateText(update)))
                }
                if !update.isReachable {
                    watches[index].handshakeOK = watches[index].host?.port == nil
                    watches[index].handshakeFailure = nil
                } else {
                    watches[index].lookup = nil  // a later unreachable spell is looked up afresh
                }
                if watches[index].handshakePending { startHandshake(index) }
                startLookup(index)
            case .looked(let index, let answer):
                watches[index].looking = false
                watches[index].lookup = answer
                continue
            case .handshook(let index, let outcome):
                watches[index].shaking = false
                watches[index].handshakeOK = outcome == .connected
                if case .failed(let why) = outcome { watches[index].handshakeFailure = why }
                if outcome != .connected {
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
                if holding {
                    let held = (ContinuousClock.now - holdingSince).components
                    let tenths = Int(held.seconds) * 10 + Int(held.attoseconds / 100_000_000_000_000_000)
                    return outcome(.notSatisfied("timed out after \(Seconds.text(of: timeout ?? .zero)) s: the condition held for only "
                                                 + "\(tenths / 10).\(tenths % 10) s of --stable \(Seconds.text(of: stable)) s"))
                }
                return outcome(.notSatisfied("timed out after \(Seconds.text(of: timeout ?? .zero)) s: \(reason())"))
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
                    holdingSince = .now
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

    /// Exit 5's sentence: on exactly these machines no check runs and none can come (the source
    /// says so: NetworkManager with its check off, systemd-networkd; or no system bus, so none
    /// can come), and reachd's own check is what `online` needs; where to turn it on (for the reachd
    /// that answered, or reachd's engine in this process), and what to use meanwhile.
    private func cannotEvaluateText(_ update: ReachabilityUpdate) -> String {
        let turnOn = update.service == .inProcess
            ? "Turn it on for this process with REACHD_CONNECTIVITY_URI=http://... (no reachd shares this network namespace)"
            : "Turn it on with [connectivity] uri=http://... in \(ReachdConfigurationFiles.user) (a system reachd reads "
                + "\(ReachdConfigurationFiles.system)) and restart reachd"
        let source = switch update.backend {
        case .networkmanager?: "NetworkManager does not check"
        case .systemdNetworkd?: "systemd-networkd does not check connectivity"
        default: "there is no system bus to watch here, so no network daemon can come with a check"
        }
        return "--level online needs a connectivity check, and none runs here: \(source), "
            + "and reachd's own check is off. \(turnOn); or use --level dns, or --host NAME"
    }

    /// One handshake, each address's connect bounded by `within`, off Swift concurrency's threads.
    private static func shake(_ host: String, _ port: UInt16, within: Duration) async -> TCPHandshake.Outcome {
        let milliseconds = max(Int32(within.components.seconds * 1000 + within.components.attoseconds / 1_000_000_000_000_000), 1)
        return await runBlocking { TCPHandshake.attempt(host: host, port: port, timeout: milliseconds) }
    }

    /// On a terminal, one line per change of the condition on standard error.
    private func say(_ text: String) {
        guard !quiet, isatty(STDERR_FILENO) == 1 else { return }
        Output.error(text)
    }
}
