internal import DBus
internal import ReachabilityContract

/// What the watch loop reacts to, in the order it arrives.
enum WatchEvent: Sendable {
    /// (Re)connect to the session bus.
    case connect
    /// A signal that arrived on the connection of that generation.
    case signal(generation: Int, Message)
    /// That connection's subscription ended: the bus went away.
    case signalsEnded(generation: Int)
    /// `StartServiceByName` failed: the service cannot be activated.
    case activationFailed(generation: Int, ReachabilityError)
    /// Activation is taking long; report Unknown meanwhile.
    case activationGraceExpired(generation: Int)
    /// Ask for activation again (the service left, or could not be started).
    case reactivate(generation: Int)
    case stop
}

/// One watch: the connection, the service's current owner, what was last read from it and the
/// host monitor it made. Owned by the one task that runs `run()`.
///
/// How no change is missed or reordered: the subscription is made before anything is read; a
/// read (`GetAll`) remembers the serial of its reply, and signals from the same owner with a
/// serial up to it are skipped, since the reply already reflects them. A new owner is read
/// afresh (and gets a new host monitor); no owner means Unknown.
struct WatchLoop {
    let target: NetworkReachabilityManager.Target
    let sessionBusAddress: String?
    let events: AsyncStream<WatchEvent>
    let post: AsyncStream<WatchEvent>.Continuation
    let report: @Sendable (ReachabilityUpdate) -> Void
    let reportError: @Sendable (ReachabilityError?) -> Void

    /// How long `startMonitoring()` waits for an activated service before reporting Unknown.
    static let activationGrace: Duration = .seconds(2)
    static let firstRetry: Duration = .milliseconds(250)
    /// Activations in a row that reachd refuses (exit status 64: its configuration or command
    /// line is bad) before the watch stops asking: retried 250 ms apart, the four come within
    /// three seconds, and waiting longer would not fix a file.
    static let refusalsBeforeGivingUp = 4
    static let lastRetry: Duration = .seconds(30)
    static let callTimeout: Duration = .seconds(10)

    private var connection: Connection?
    /// Counts connections, so events of an earlier one are recognised and dropped.
    private var generation = 0
    private var forwarding: Task<Void, Never>?
    private var activation: Task<Void, Never>?
    private var activationGrace: Task<Void, Never>?
    private var retry: Task<Void, Never>?
    private var retryDelay = Self.firstRetry
    /// Activations in a row that ended with reachd's exit status 64.
    private var refusals = 0

    /// The unique name owning the service's name, as last seen.
    private var owner: BusName?
    /// The serial of the owner's reply to our last read: its signals up to this are already in it.
    private var readSerial: UInt32?
    /// The host monitor the owner made for us.
    private var monitorPath: ObjectPath?
    private var current = ReachabilityUpdate.unknown
    private var reported: ReachabilityUpdate?
    /// The owner answered NotAllowed (a sandbox without network): its broadcast signals, which
    /// the bus delivers to everyone, are not for us; we stay Unknown.
    private var refused = false

    init(
        target: NetworkReachabilityManager.Target, sessionBusAddress: String?, events: AsyncStream<WatchEvent>,
        post: AsyncStream<WatchEvent>.Continuation, report: @escaping @Sendable (ReachabilityUpdate) -> Void,
        reportError: @escaping @Sendable (ReachabilityError?) -> Void
    ) {
        self.target = target
        self.sessionBusAddress = sessionBusAddress
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
                await connect()
            case .signal(let generation, let message):
                if generation == self.generation { await handle(message) }
            case .signalsEnded(let generation):
                if generation == self.generation { await lostConnection() }
            case .activationFailed(let generation, let error):
                if generation == self.generation, owner == nil { activationFailed(error, generation: generation) }
            case .reactivate(let generation):
                if generation == self.generation, owner == nil, let bus = connection {
                    activate(on: bus, generation: generation)
                }
            case .activationGraceExpired(let generation):
                if generation == self.generation, owner == nil { publish(.unknown) }
            }
        }
        await finish()
    }

    // MARK: Connection

    private mutating func connect() async {
        guard connection == nil else { return }
        let bus: Connection
        do {
            if let sessionBusAddress {
                bus = try await Connection.open(address: sessionBusAddress)
            } else {
                bus = try await Connection.session()
            }
        } catch {
            reportError(ReachabilityError(error))
            publish(.unknown)
            retryLater()
            return
        }
        generation += 1
        let generation = generation
        do {
            // Subscribe first, then read: a change made in between is in the stream.
            let signals = try await bus.signals(matchingAny: ServiceSubscriptions.rules(for: target))
            forwarding = Task { [post] in
                for await signal in signals { post.yield(.signal(generation: generation, signal)) }
                post.yield(.signalsEnded(generation: generation))
            }
            connection = bus
            owner = try await bus.nameOwner(of: ReachabilityContract.busName)
        } catch {
            forwarding?.cancel()
            forwarding = nil
            connection = nil
            await bus.close()
            reportError(ReachabilityError(error))
            publish(.unknown)
            retryLater()
            return
        }
        retryDelay = Self.firstRetry
        refusals = 0
        if owner != nil {
            await read()
        } else {
            activate(on: bus, generation: generation)
        }
    }

    /// Asks the bus to start the service. Its arrival is seen as `NameOwnerChanged` in the
    /// subscription; a failure (no activation file) or a slow start reports Unknown meanwhile.
    private mutating func activate(on bus: Connection, generation: Int) {
        activation?.cancel()
        activationGrace?.cancel()
        activation = Task { [post] in
            do {
                _ = try await bus.call(
                    destination: .bus, path: ServiceSubscriptions.busPath, interface: .bus, member: "StartServiceByName",
                    body: [.string(ReachabilityContract.busName.rawValue), .uint32(0)], timeout: .seconds(30))
            } catch is CancellationError {
            } catch {
                post.yield(.activationFailed(generation: generation, ReachabilityError(error)))
            }
        }
        activationGrace = schedule(.activationGraceExpired(generation: generation), after: Self.activationGrace)
    }

    /// Activation failed: report it, and ask again later, unless reachd refused its
    /// configuration `refusalsBeforeGivingUp` times in a row. Then the bus would only start it
    /// to watch it exit again, filling its log: the watch reports that it stopped asking, and
    /// goes on only when the name appears by other means (`NameOwnerChanged`), or on a new
    /// connection to the bus.
    private mutating func activationFailed(_ error: ReachabilityError, generation: Int) {
        refusals = error.reachdExitStatus == 64 ? refusals + 1 : 0
        publish(.unknown)
        guard refusals < Self.refusalsBeforeGivingUp else {
            retry?.cancel()
            retry = nil
            reportError(ReachabilityError(name: error.name, message: error.message
                + " (\(refusals) times in a row; not started again until it appears on the bus)"))
            return
        }
        reportError(error)
        if refusals > 0 {
            // A refusal is retried at the first delay: four of them are quickly told apart from a slow start.
            retry?.cancel()
            retry = schedule(.reactivate(generation: generation), after: Self.firstRetry)
        } else {
            reactivateLater(generation: generation)
        }
    }

    private mutating func lostConnection() async {
        guard let bus = connection else { return }
        connection = nil
        forwarding = nil
        await bus.close()
        forgetService()
        reportError(ReachabilityError(name: ReachabilityError.disconnected, message: "the connection to the session bus was lost"))
        publish(.unknown)
        retryLater()
    }

    private mutating func retryLater() {
        retry = schedule(.connect, after: retryDelay)
        retryDelay = min(retryDelay * 2, Self.lastRetry)
    }

    /// Activation failed (not installed, or it failed to start): ask again after a
    /// growing delay (250 ms doubling to 30 s), so the service is picked up when it
    /// becomes startable without the client hammering the bus meanwhile.
    private mutating func reactivateLater(generation: Int) {
        retry?.cancel()
        retry = schedule(.reactivate(generation: generation), after: retryDelay)
        retryDelay = min(retryDelay * 2, Self.lastRetry)
    }

    private func schedule(_ event: WatchEvent, after delay: Duration) -> Task<Void, Never> {
        Task { [post] in
            guard (try? await Task.sleep(for: delay)) != nil else { return }
            post.yield(event)
        }
    }

    private mutating func forgetService() {
        owner = nil
        readSerial = nil
        monitorPath = nil
        current = .unknown
        refused = false
    }

    /// Releases the host monitor (explicitly, though the service also releases it when our
    /// connection leaves) and closes the connection.
    private mutating func finish() async {
        for task in [activation, activationGrace, retry, forwarding] { task?.cancel() }
        if let bus = connection {
            if let monitorPath, let owner {
                _ = try? await bus.call(destination: owner, path: monitorPath, interface: ReachabilityContract.monitorInterface,
                                        member: ReachabilityContract.release, timeout: .seconds(5))
            }
            await bus.close()
        }
        connection = nil
        post.finish()
    }

    // MARK: State

    private mutating func handle(_ signal: Message) async {
        if signal.sender == .bus {
            guard signal.member == "NameOwnerChanged", signal.body.count == 3,
                  signal.body[0].stringValue == ReachabilityContract.busName.rawValue else { return }
            let newOwner = signal.body[2].stringValue.flatMap(BusName.init(rawValue:))
            guard newOwner != owner else { return }
            forgetService()
            owner = newOwner
            if newOwner == nil {
                // Gone (stopped, crashed, or being replaced): Unknown until it is back.
                // Ask the bus to start it again, as at the start: a watcher never gives
                // up on the service. (A replacement takes the name before this
                // arrives, or answers the activation request by being there.)
                publish(.unknown)
                if let bus = connection { activate(on: bus, generation: generation) }
            } else {
                activation?.cancel()
                activationGrace?.cancel()
                retry?.cancel()
                retryDelay = Self.firstRetry
                refusals = 0
                // A new instance: read it afresh, and make our host monitor again.
                await read()
            }
            return
        }
        guard let owner, signal.sender == owner, !refused else { return }
        if let readSerial, !Self.isAfter(signal.serial, readSerial) { return }
        guard let path = objectPath, signal.path == path else { return }
        let interface = objectInterface
        if signal.interface == .properties, signal.member == "PropertiesChanged" {
            guard signal.body.count == 3, signal.body[0].stringValue == interface.rawValue else { return }
            current.apply(ReachabilityUpdate.properties(in: signal.body[1]))
            if case .array(_, let invalidated) = signal.body[2], !invalidated.isEmpty {
                await read()
            } else {
                publish(current)
            }
        } else if signal.interface == interface, signal.member == "ReachabilityChanged" {
            guard signal.body.count == 2, case .int32(let status) = signal.body[0],
                  case .uint32(let flags) = signal.body[1] else { return }
            current.status = NetworkReachabilityStatus(rawValue: status) ?? .unknown
            current.flags = ReachabilityFlags(rawValue: flags)
            publish(current)
        }
    }

    /// The object followed: the service's main object, or our host monitor once it exists.
    private var objectPath: ObjectPath? {
        target == .defaultRoute ? ReachabilityContract.objectPath : monitorPath
    }

    private var objectInterface: InterfaceName {
        target == .defaultRoute ? ReachabilityContract.interface : ReachabilityContract.monitorInterface
    }

    /// Reads the whole state from the current owner (making the host monitor first if needed).
    private mutating func read() async {
        guard let bus = connection, let owner else { return }
        do {
            if monitorPath == nil, let request = target.monitorRequest {
                let reply = try await bus.call(destination: owner, path: ReachabilityContract.objectPath,
                                               interface: ReachabilityContract.interface, member: request.method,
                                               body: [.string(request.host)], timeout: Self.callTimeout)
                guard case .objectPath(let path)? = reply.first else {
                    throw DBusError.failed("\(request.method) answered \(reply) instead of an object path")
                }
                monitorPath = path
            }
            guard let path = objectPath else { return }
            let reply = try await bus.call(
                .methodCall(destination: owner, path: path, interface: .properties, member: "GetAll",
                            body: [.string(objectInterface.rawValue)]),
                timeout: Self.callTimeout)
            var fresh = ReachabilityUpdate.unknown
            fresh.apply(ReachabilityUpdate.properties(in: reply.body.first ?? .structure([])))
            current = fresh
            readSerial = reply.serial
            reportError(nil)
            publish(current)
        } catch {
            let error = ReachabilityError(error)
            // A lost bus shows up as the end of the subscription, handled there.
            guard error.name != ReachabilityError.disconnected else { return }
            if error.name == ReachabilityError.notAllowed { refused = true }
            reportError(error)
            current = .unknown
            publish(.unknown)
        }
    }

    private mutating func publish(_ update: ReachabilityUpdate) {
        guard update != reported else { return }
        reported = update
        report(update)
    }

    /// Serial `a` was sent after serial `b` by the same connection (serials wrap at 2³²).
    static func isAfter(_ a: UInt32, _ b: UInt32) -> Bool {
        Int32(bitPattern: a &- b) > 0
    }
}
