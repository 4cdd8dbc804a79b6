internal import ReachdDBus
internal import ReachdContract

/// What the watch loop reacts to, in the order it arrives.
enum WatchEvent: Sendable {
    /// Look for a provider, nearest first.
    case connect
    /// A signal that arrived on the bus link of that generation.
    case signal(generation: Int, Message)
    /// That link's subscription ended: its bus went away.
    case signalsEnded(generation: Int)
    /// `StartServiceByName` failed on that link: the service cannot be activated.
    case activationFailed(generation: Int, ReachabilityError)
    /// Activation on that link is taking long.
    case activationGraceExpired(generation: Int)
    /// Ask that link's bus for activation again (the service left, or could not be started).
    case reactivate(generation: Int)
    /// A value from the engine in this process.
    case inProcess(ReachabilityUpdate)
    /// The engine in this process could not start.
    case inProcessFailed(ReachabilityError)
    case stop
}

/// One watch: the providers it may use (contract 4, §2.1: reachd on the session bus, reachd on the
/// system bus, the engine in this process), the one it uses, what was last read from each and the
/// host monitor each made. Owned by the one task that runs `run()`.
///
/// Which provider: the nearest that answers, shares this process's network namespace and, for a
/// bus, has reachd running or activatable. When the one in use leaves and cannot be started again,
/// the watch moves down the order; when a nearer one appears (its name on a bus it watches), it
/// moves back up. Each move is one update, with the new `service`, and no Unknown in between;
/// Unknown only while no provider answers. A chosen provider (`ServiceChoice` other than
/// `.automatic`) is the only one: it is waited for, and what keeps it away is `lastError`.
///
/// How no change is missed or reordered on a bus: the subscription is made before anything is
/// read; a read (`GetAll`) remembers the serial of its reply, and signals from the same owner
/// with a serial up to it are skipped, since the reply already reflects them. A new owner is read
/// afresh (and gets a new host monitor).
struct WatchLoop {
    let target: NetworkReachabilityManager.Target
    let candidates: [ProviderCandidate]
    /// Only one provider was chosen: no other is tried.
    let explicit: Bool
    let events: AsyncStream<WatchEvent>
    let post: AsyncStream<WatchEvent>.Continuation
    let report: @Sendable (ReachabilityUpdate) -> Void
    let reportError: @Sendable (ReachabilityError?) -> Void

    /// How long a watch waits for an activated service before it reports Unknown (or, choosing by
    /// itself, the next provider's answer).
    static let activationGrace: Duration = .seconds(2)
    static let firstRetry: Duration = .milliseconds(250)
    /// Activations in a row that reachd refuses (exit status 64: its configuration or command
    /// line is bad) before the watch stops asking: retried 250 ms apart, the four come within
    /// three seconds, and waiting longer would not fix a file.
    static let refusalsBeforeGivingUp = 4
    static let lastRetry: Duration = .seconds(30)
    static let callTimeout: Duration = .seconds(10)

    /// One bus the watch is connected to, and what it knows of reachd there.
    struct Link {
        let index: Int
        let provider: ReachabilityProvider
        let connection: Connection
        let generation: Int
        var forwarding: Task<Void, Never>
        /// The unique name owning the service's name, as last seen.
        var owner: BusName?
        /// The serial of the owner's reply to our last read: its signals up to this are already in it.
        var readSerial: UInt32?
        /// The host monitor the owner made for us.
        var monitorPath: ObjectPath?
        var current = ReachabilityUpdate.unknown
        /// The owner has been read (and, for a host, made our monitor): `current` is its answer.
        var hasRead = false
        /// The owner answers for another network namespace: never used.
        var foreign = false
        /// The owner answered NotAllowed (a sandbox without network): its broadcast signals, which
        /// the bus delivers to everyone, are not for us.
        var refused = false
        var activation = Activation.idle
        var activationTask: Task<Void, Never>?
        var graceTask: Task<Void, Never>?
        var retryTask: Task<Void, Never>?
        var retryDelay = WatchLoop.firstRetry
        /// Activations in a row that ended with reachd's exit status 64.
        var refusals = 0
        /// Why this link's reachd cannot serve, for `lastError`.
        var error: ReachabilityError?

        enum Activation: Equatable {
            case idle
            case pending
            /// Taking longer than the grace: the next provider answers meanwhile.
            case slow
            case failed
        }

        func cancelTimers() {
            for task in [activationTask, graceTask, retryTask] { task?.cancel() }
        }
    }

    private var links: [Int: Link] = [:]
    /// Buses that could not be connected to, by candidate index, with why.
    private var unreachable: [Int: ReachabilityError] = [:]
    /// Counts links, so events of an earlier one are recognised and dropped.
    private var generation = 0
    /// The candidate whose answers are reported, nil while none answers.
    private var active: Int?
    /// The engine in this process, while an in-process candidate is in use.
    private var inProcess: InProcessWatch?
    private var inProcessCurrent = ReachabilityUpdate.unknown
    private var inProcessError: ReachabilityError?
    /// A retry of a bus that could not be connected to (only when it was chosen).
    private var connectRetry: Task<Void, Never>?
    private var connectRetryDelay = Self.firstRetry
    private var reported: ReachabilityUpdate?
    private var reportedError: ReachabilityError??

    init(
        target: NetworkReachabilityManager.Target, choice: ServiceChoice, events: AsyncStream<WatchEvent>,
        post: AsyncStream<WatchEvent>.Continuation, report: @escaping @Sendable (ReachabilityUpdate) -> Void,
        reportError: @escaping @Sendable (ReachabilityError?) -> Void
    ) {
        self.target = target
        candidates = choice.candidates
        explicit = choice.isExplicit
        self.events = events
        self.post = post
        self.report = report
        self.reportError = reportError
    }

    mutating func run() async {
        post.yield(.connect)
        events: for await event in events {
            switch event {
            case .stop:
                break events
            case .connect:
                unreachable = [:]
                await settle()
            case .signal(let generation, let message):
                if let index = link(generation) { await handle(message, on: index) }
            case .signalsEnded(let generation):
                if let index = link(generation) { await lostConnection(index) }
            case .activationFailed(let generation, let error):
                if let index = link(generation), links[index]?.owner == nil { await activationFailed(error, on: index) }
            case .reactivate(let generation):
                if let index = link(generation), links[index]?.owner == nil {
                    links[index]?.activation = .idle
                    await settle()
                }
            case .activationGraceExpired(let generation):
                if let index = link(generation), links[index]?.owner == nil, links[index]?.activation == .pending {
                    links[index]?.activation = .slow
                    await settle()
                }
            case .inProcess(var update):
                update.service = .inProcess
                inProcessCurrent = update
                inProcessError = nil
                if let active, candidates[active] == .inProcess { publish(update) }
            case .inProcessFailed(let error):
                inProcessError = error
                await stopInProcess()
                await settle()
            }
        }
        await finish()
    }

    private func link(_ generation: Int) -> Int? {
        links.values.first { $0.generation == generation }?.index
    }

    // MARK: Choosing

    /// Walks the candidates nearest first and uses the first that can answer now. A bus whose
    /// reachd is being started holds the walk (unless the start is slow and another provider
    /// may answer meanwhile); one that cannot serve lets it go on.
    private mutating func settle() async {
        for index in candidates.indices {
            switch candidates[index] {
            case .inProcess:
                if inProcessError != nil { continue }
                await startInProcess()
                guard inProcess != nil else { continue }
                use(index)
                return
            case .bus:
                if links[index] == nil {
                    guard unreachable[index] == nil else { continue }
                    await connect(index)
                }
                guard let link = links[index] else { continue }
                if link.owner != nil {
                    if !link.hasRead && !link.foreign && !link.refused { await read(index) }
                    guard let link = links[index], link.hasRead, !link.foreign else {
                        // Refused (a sandbox without network): nobody else would answer it better.
                        if links[index]?.refused == true { use(index); return }
                        continue
                    }
                    use(index)
                    return
                }
                switch link.activation {
                case .idle:
                    activate(index)
                    return
                case .pending:
                    return
                case .slow, .failed:
                    continue
                }
            }
        }
        // Nobody answers: Unknown, and the nearest reason.
        active = nil
        reportLastError(nearestError())
        publish(.unknown)
        if explicit, links.isEmpty, !unreachable.isEmpty { retryConnectLater() }
    }

    /// Reports `index`'s answers from now on; lets go of the providers after it.
    private mutating func use(_ index: Int) {
        active = index
        for other in links.keys where other > index { dropLink(other) }
        if candidates[index] != .inProcess, inProcess != nil { Task { [inProcess] in await inProcess?.stop() }; inProcess = nil }
        if candidates[index] == .inProcess {
            reportLastError(nil)
            if inProcessCurrent.service != nil { publish(inProcessCurrent) }
            return
        }
        guard let link = links[index] else { return }
        if link.refused {
            reportLastError(link.error)
            publish(.unknown)
            return
        }
        reportLastError(nil)
        publish(link.current)
    }

    /// The providers nearer than the one in use that were set up to answer and could not.
    private func passedOver() -> [ReachabilityError] {
        guard let active else { return [] }
        return candidates.indices.prefix(active).compactMap { index in
            (links[index]?.error ?? unreachable[index]).flatMap { $0.isFailedSetUp ? $0 : nil }
        }
    }

    /// Why nobody answers: the nearest provider's reason, unless it is only absent (no session
    /// bus, reachd not installed) and a farther one failed for a reason of its own (the engine
    /// in this process refusing REACHD_CONNECTIVITY_URI): that one is what to fix.
    private func nearestError() -> ReachabilityError? {
        var errors: [ReachabilityError] = []
        for index in candidates.indices {
            if let error = links[index]?.error ?? unreachable[index] { errors.append(error) }
            if candidates[index] == .inProcess, let inProcessError { errors.append(inProcessError) }
        }
        return errors.first { !$0.meansAbsent } ?? errors.first
    }

    // MARK: Buses

    private mutating func connect(_ index: Int) async {
        let provider = candidates[index].provider
        let bus: Connection
        do {
            bus = try await candidates[index].connect()
        } catch {
            unreachable[index] = error
            return
        }
        generation += 1
        let generation = generation
        do {
            // Subscribe first, then read: a change made in between is in the stream.
            let signals = try await bus.signals(matchingAny: ServiceSubscriptions.rules(for: target))
            let forwarding = Task { [post] in
                for await signal in signals { post.yield(.signal(generation: generation, signal)) }
                post.yield(.signalsEnded(generation: generation))
            }
            var link = Link(index: index, provider: provider, connection: bus, generation: generation, forwarding: forwarding)
            link.owner = try await bus.nameOwner(of: ReachdContract.busName)
            links[index] = link
        } catch {
            await bus.close()
            unreachable[index] = ReachabilityError(error).of(provider)
            return
        }
        connectRetryDelay = Self.firstRetry
    }

    /// Asks the bus to start the service. Its arrival is seen as `NameOwnerChanged` in the
    /// subscription; a failure (no activation file) or a slow start lets the walk go on.
    private mutating func activate(_ index: Int) {
        guard var link = links[index] else { return }
        link.cancelTimers()
        link.activation = .pending
        let bus = link.connection, generation = link.generation, provider = link.provider
        link.activationTask = Task { [post] in
            do {
                _ = try await bus.call(
                    destination: .bus, path: ServiceSubscriptions.busPath, interface: .bus, member: "StartServiceByName",
                    body: [.string(ReachdContract.busName.rawValue), .uint32(0)], timeout: .seconds(30))
            } catch is CancellationError {
            } catch {
                post.yield(.activationFailed(generation: generation, ReachabilityError(error).of(provider)))
            }
        }
        link.graceTask = schedule(.activationGraceExpired(generation: generation), after: Self.activationGrace)
        links[index] = link
    }

    /// Activation failed: remember why, and ask again later while this bus is the one chosen
    /// (or nearer than the one in use: it may become startable), unless reachd refused its
    /// configuration `refusalsBeforeGivingUp` times in a row. Then the bus would only start it to
    /// watch it exit again, filling its log: the watch stops asking, and goes on only when the
    /// name appears by other means (`NameOwnerChanged`), or on a new connection to the bus.
    private mutating func activationFailed(_ error: ReachabilityError, on index: Int) async {
        guard var link = links[index] else { return }
        link.cancelTimers()
        link.activation = .failed
        link.refusals = error.reachdExitStatus == 64 ? link.refusals + 1 : 0
        link.error = error
        if link.refusals >= Self.refusalsBeforeGivingUp {
            link.error = ReachabilityError(name: error.name, message: error.message
                + " (\(link.refusals) times in a row; not started again until it appears on the bus)").of(link.provider)
        } else if explicit {
            // A refusal is retried at the first delay: four of them are quickly told apart from a slow start.
            let delay = link.refusals > 0 ? Self.firstRetry : link.retryDelay
            link.retryTask = schedule(.reactivate(generation: link.generation), after: delay)
            link.retryDelay = min(link.retryDelay * 2, Self.lastRetry)
        }
        links[index] = link
        await settle()
    }

    private mutating func lostConnection(_ index: Int) async {
        dropLink(index)
        unreachable[index] = ReachabilityError(name: ReachabilityError.disconnected,
                                               message: "the connection to the \(candidates[index].provider == .system ? "system" : "session") bus was lost")
            .of(candidates[index].provider)
        if explicit { retryConnectLater() }
        await settle()
    }

    private mutating func dropLink(_ index: Int) {
        guard let link = links.removeValue(forKey: index) else { return }
        link.cancelTimers()
        link.forwarding.cancel()
        let monitor = link.monitorPath, owner = link.owner, bus = link.connection
        Task {
            if let monitor, let owner {
                _ = try? await bus.call(destination: owner, path: monitor, interface: ReachdContract.monitorInterface,
                                        member: ReachdContract.release, timeout: .seconds(5))
            }
            await bus.close()
        }
        if active == index { active = nil }
    }

    /// A chosen bus that could not be connected to is tried again after a growing delay.
    private mutating func retryConnectLater() {
        connectRetry?.cancel()
        connectRetry = schedule(.connect, after: connectRetryDelay)
        connectRetryDelay = min(connectRetryDelay * 2, Self.lastRetry)
    }

    private func schedule(_ event: WatchEvent, after delay: Duration) -> Task<Void, Never> {
        Task { [post] in
            guard (try? await Task.sleep(for: delay)) != nil else { return }
            post.yield(event)
        }
    }

    // MARK: In this process

    private mutating func startInProcess() async {
        guard inProcess == nil else { return }
        do {
            inProcess = try await InProcessWatch(target: target, post: post)
        } catch {
            inProcessError = error.of(.inProcess)
        }
    }

    private mutating func stopInProcess() async {
        await inProcess?.stop()
        inProcess = nil
        inProcessCurrent = .unknown
    }

    /// Releases the host monitors (explicitly, though the service also releases them when our
    /// connection leaves) and closes the connections.
    private mutating func finish() async {
        connectRetry?.cancel()
        for index in Array(links.keys) {
            guard let link = links.removeValue(forKey: index) else { continue }
            link.cancelTimers()
            link.forwarding.cancel()
            if let monitorPath = link.monitorPath, let owner = link.owner {
                _ = try? await link.connection.call(destination: owner, path: monitorPath, interface: ReachdContract.monitorInterface,
                                                    member: ReachdContract.release, timeout: .seconds(5))
            }
            await link.connection.close()
        }
        await stopInProcess()
        post.finish()
    }

    // MARK: Signals

    private mutating func handle(_ signal: Message, on index: Int) async {
        guard let link = links[index] else { return }
        if signal.sender == .bus {
            guard signal.member == "NameOwnerChanged", signal.body.count == 3,
                  signal.body[0].stringValue == ReachdContract.busName.rawValue else { return }
            let newOwner = signal.body[2].stringValue.flatMap(BusName.init(rawValue:))
            guard newOwner != link.owner else { return }
            forgetService(index)
            links[index]?.owner = newOwner
            if newOwner == nil {
                // Gone (stopped, crashed, or being replaced). A chosen provider shows Unknown until
                // it is back; choosing by itself, the watch keeps the last answer while it asks the
                // bus to start reachd again, and moves down only if it cannot.
                if explicit, active == index { publish(.unknown) }
            } else {
                links[index]?.cancelTimers()
                links[index]?.retryDelay = Self.firstRetry
                links[index]?.refusals = 0
            }
            // A new instance is read afresh (and makes our host monitor again); a nearer one that
            // answers takes over.
            if active.map({ index <= $0 }) ?? true { await settle() }
            return
        }
        guard let owner = link.owner, signal.sender == owner, !link.refused, link.hasRead else { return }
        if let readSerial = link.readSerial, !Self.isAfter(signal.serial, readSerial) { return }
        guard let path = objectPath(of: link), signal.path == path else { return }
        let interface = objectInterface
        if signal.interface == .properties, signal.member == "PropertiesChanged" {
            guard signal.body.count == 3, signal.body[0].stringValue == interface.rawValue else { return }
            links[index]?.current.apply(ReachabilityUpdate.properties(in: signal.body[1]))
            if case .array(_, let invalidated) = signal.body[2], !invalidated.isEmpty {
                await read(index)
            }
        } else if signal.interface == interface, signal.member == "ReachabilityChanged" {
            guard signal.body.count == 2, case .int32(let status) = signal.body[0],
                  case .uint32(let flags) = signal.body[1] else { return }
            links[index]?.current.status = NetworkReachabilityStatus(rawValue: status) ?? .unknown
            links[index]?.current.flags = ReachabilityFlags(rawValue: flags)
        } else {
            return
        }
        if active == index, let current = links[index]?.current { publish(current) }
    }

    private mutating func forgetService(_ index: Int) {
        guard var link = links[index] else { return }
        link.owner = nil
        link.readSerial = nil
        link.monitorPath = nil
        link.current = .unknown
        link.hasRead = false
        link.foreign = false
        link.refused = false
        link.error = nil
        link.activation = .idle
        links[index] = link
    }

    /// The object followed: the service's main object, or our host monitor once it exists.
    private func objectPath(of link: Link) -> ObjectPath? {
        target == .defaultRoute ? ReachdContract.objectPath : link.monitorPath
    }

    private var objectInterface: InterfaceName {
        target == .defaultRoute ? ReachdContract.interface : ReachdContract.monitorInterface
    }

    /// Reads the whole state from the owner on `index`'s bus: first whether it answers for this
    /// process's network namespace, then (for a host) our monitor, then every property.
    private mutating func read(_ index: Int) async {
        guard let link = links[index], let owner = link.owner else { return }
        let bus = link.connection
        do {
            if let foreign = try await NamespaceCheck.foreignNamespace(of: owner, on: bus, timeout: Self.callTimeout) {
                links[index]?.foreign = true
                links[index]?.error = NamespaceCheck.error(foreign, provider: link.provider)
                return
            }
            var monitorPath = link.monitorPath
            if monitorPath == nil, let request = target.monitorRequest {
                let reply = try await bus.call(destination: owner, path: ReachdContract.objectPath,
                                               interface: ReachdContract.interface, member: request.method,
                                               body: [.string(request.host)], timeout: Self.callTimeout)
                guard case .objectPath(let path)? = reply.first else {
                    throw DBusError.failed("\(request.method) answered \(reply) instead of an object path")
                }
                monitorPath = path
                links[index]?.monitorPath = path
            }
            guard let path = target == .defaultRoute ? ReachdContract.objectPath : monitorPath else { return }
            let reply = try await bus.call(
                .methodCall(destination: owner, path: path, interface: .properties, member: "GetAll",
                            body: [.string(objectInterface.rawValue)]),
                timeout: Self.callTimeout)
            var fresh = ReachabilityUpdate.unknown
            fresh.apply(ReachabilityUpdate.properties(in: reply.body.first ?? .structure([])))
            fresh.service = link.provider
            links[index]?.current = fresh
            links[index]?.readSerial = reply.serial
            links[index]?.hasRead = true
            links[index]?.error = nil
        } catch {
            let error = ReachabilityError(error).of(link.provider)
            // A lost bus shows up as the end of the subscription, handled there.
            guard error.name != ReachabilityError.disconnected else { return }
            if error.name == ReachabilityError.notAllowed { links[index]?.refused = true }
            // A reachd that cannot tell this process's namespace answers nothing for it: as foreign.
            if error.name == ReachabilityError.otherNetworkNamespace || error.name == ReachabilityError.unknownNetworkNamespace {
                links[index]?.foreign = true
            }
            links[index]?.error = error
            links[index]?.current = .unknown
        }
    }

    // MARK: Reporting

    private mutating func publish(_ update: ReachabilityUpdate) {
        var update = update
        update.passedOver = update.service == nil ? [] : passedOver()
        guard update != reported else { return }
        reported = update
        report(update)
    }

    private mutating func reportLastError(_ error: ReachabilityError?) {
        guard reportedError != .some(error) else { return }
        reportedError = .some(error)
        reportError(error)
    }

    /// Serial `a` was sent after serial `b` by the same connection (serials wrap at 2³²).
    static func isAfter(_ a: UInt32, _ b: UInt32) -> Bool {
        Int32(bitPattern: a &- b) > 0
    }
}
