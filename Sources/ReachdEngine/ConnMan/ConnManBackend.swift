import ReachdDBus
import Logging
import ReachdCore
import Synchronization

/// Watches ConnMan on the system bus and reports what it says (contract 5, §5).
///
/// One stream carries ConnMan's signals, the bus's `NameOwnerChanged` about it, resumes and this
/// back end's retry timer, in the order they happened. Everything is read once (`GetProperties`,
/// `GetServices`) when ConnMan appears and after a resume; after that its signals carry every
/// change and cost no call: the manager's `PropertyChanged` (`State`, `OfflineMode`),
/// `ServicesChanged` (the whole order, with the properties that changed and the removed
/// services) and each service's `PropertyChanged`.
///
/// ConnMan says one change in several signals at once (a service's `State` through `disconnect`
/// to `idle`, its `IPv4`, then the manager's `State`): everything that has arrived is applied
/// before one report, so a change is reported once, not once per signal, and no timer is armed.
///
/// Errors as NetworkManager's back end: a failed read keeps the last report and everything is
/// read again after a bounded backoff.
public struct ConnManBackend: Sendable {
    private let bus: Connection
    private let logger: Logger
    private let callTimeout: Duration

    public init(bus: Connection, logger: Logger, callTimeout: Duration = .seconds(5)) {
        self.bus = bus
        self.logger = logger
        self.callTimeout = callTimeout
    }

    private enum Input: Sendable {
        case signal(Message)
        /// Time to read again what a failure left unread.
        case retry
        /// The machine woke from sleep: read everything again.
        case resync
    }

    /// Calls `report` with ConnMan's state (nil while it is not on the bus): first once the
    /// initial state is read (at once, nil, when ConnMan is not there), then after each change
    /// that alters the snapshot. Returns when the task is cancelled or the bus goes away.
    public func run(resyncs: AsyncStream<Void> = AsyncStream { $0.finish() },
                    report: @Sendable (ConnManSnapshot?) async -> Void) async throws {
        // The inputs queue up here; the stream only wakes the loop, which takes all there are.
        let queue = Mutex<[Input]>([])
        let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let push: @Sendable (Input) -> Void = { input in
            queue.withLock { $0.append(input) }
            wake.yield()
        }
        let forwarding = Task { for await _ in resyncs { push(.resync) } }
        defer { forwarding.cancel() }
        try await bus.deliverSignals(matchingAny: [
            MatchRule(sender: ConnManNames.bus, interface: ConnManNames.managerInterface),
            MatchRule(sender: ConnManNames.bus, interface: ConnManNames.serviceInterface, member: "PropertyChanged"),
            MatchRule(sender: .bus, interface: .bus, member: "NameOwnerChanged",
                      path: "/org/freedesktop/DBus", arguments: [0: ConnManNames.bus.rawValue]),
        ], to: wake) { message in queue.withLock { $0.append(.signal(message)) } }

        var state = State()
        var backoff = RetryBackoff()
        var retry: Task<Void, Never>?
        defer { retry?.cancel() }
        state.owner = try await bus.nameOwner(of: ConnManNames.bus)
        if state.owner != nil { await synchronize(&state) }
        var last = state.snapshot
        await report(last)

        func scheduleRetry(_ state: State) {
            guard let failure = state.failure, retry == nil else { return }
            if !backoff.isFailing { logger.warning("reading ConnMan failed (\(failure)); keeping the last state and retrying") }
            let delay = backoff.next()
            retry = Task {
                guard (try? await Task.sleep(for: delay)) != nil else { return }
                push(.retry)
            }
        }
        scheduleRetry(state)

        for await _ in wakes {
            let batch = queue.withLock { inputs in
                defer { inputs = [] }
                return inputs
            }
            for input in batch {
                switch input {
                case .retry:
                    retry = nil
                    if state.owner != nil { await synchronize(&state) }
                case .resync:
                    if state.owner != nil { await synchronize(&state) }
                case .signal(let signal) where signal.sender == .bus:
                    guard signal.member?.rawValue == "NameOwnerChanged", signal.body.count == 3 else { continue }
                    let owner = signal.body[2].stringValue.flatMap(BusName.init(rawValue:))
                    // Said at notice: where NetworkManager is absent, this is reachd changing its source.
                    logger.notice("ConnMan \(owner == nil ? "left the bus: following the kernel's routes" : "is on the bus as \(owner!)")")
                    state = State()
                    state.owner = owner
                    retry?.cancel()
                    retry = nil
                    _ = backoff.reset()
                    if owner != nil { await synchronize(&state) }
                case .signal(let signal):
                    guard let owner = state.owner, signal.sender == owner, state.read else { continue }
                    state.apply(signal)
                }
            }
            scheduleRetry(state)
            guard state.failure == nil else { continue }
            if backoff.reset() { logger.notice("ConnMan answers again; its state is current") }
            let snapshot = state.snapshot
            if snapshot != last {
                last = snapshot
                await report(snapshot)
            }
        }
    }

    /// What is known, and whether a read is owed.
    private struct State {
        var owner: BusName?
        var read = false
        var managerState = ""
        var offlineMode = false
        /// The services' paths in ConnMan's order, and each one's properties.
        var order: [String] = []
        var services: [String: ConnManService] = [:]
        var failure: DBusError?

        /// nil while ConnMan is absent or not yet read.
        var snapshot: ConnManSnapshot? {
            guard owner != nil, read else { return nil }
            return ConnManSnapshot(state: managerState, offlineMode: offlineMode, services: order.compactMap { services[$0] })
        }

        mutating func applyManager(_ name: String, _ value: DBusValue) {
            switch (name, value.unwrappingVariant) {
            case ("State", .string(let text)): managerState = text
            case ("OfflineMode", .boolean(let flag)): offlineMode = flag
            default: break
            }
        }

        /// Replaces the order with `entries` (ConnMan lists every service, in order, each time),
        /// applying the properties each entry carries.
        mutating func applyServices(_ entries: [(path: String, properties: DBusValue)], removed: [String]) {
            for path in removed { services[path] = nil }
            order = entries.map(\.path)
            for entry in entries {
                var service = services[entry.path] ?? ConnManService(path: entry.path)
                ConnManServiceProperties.apply(entry.properties, to: &service)
                services[entry.path] = service
            }
            let listed = Set(order)
            for path in services.keys where !listed.contains(path) { services[path] = nil }
        }

        mutating func apply(_ signal: Message) {
            guard let member = signal.member?.rawValue, let path = signal.path else { return }
            switch (signal.interface, member) {
            case (ConnManNames.managerInterface?, "PropertyChanged") where path == ConnManNames.managerPath:
                guard signal.body.count == 2, let name = signal.body[0].stringValue else { return }
                applyManager(name, signal.body[1])
            case (ConnManNames.managerInterface?, "ServicesChanged") where path == ConnManNames.managerPath:
                guard signal.body.count == 2, case .array(_, let removed) = signal.body[1] else { return }
                applyServices(ConnManServiceProperties.entries(signal.body[0]), removed: removed.compactMap {
                    if case .objectPath(let path) = $0 { path.rawValue } else { nil }
                })
            case (ConnManNames.serviceInterface?, "PropertyChanged"):
                guard signal.body.count == 2, let name = signal.body[0].stringValue,
                      var service = services[path.rawValue] else { return }
                ConnManServiceProperties.apply(name, signal.body[1].unwrappingVariant, to: &service)
                services[path.rawValue] = service
            default:
                break
            }
        }
    }

    /// Reads the manager's properties and every service.
    private func synchronize(_ state: inout State) async {
        state.failure = nil
        do {
            let properties = try await bus.call(destination: ConnManNames.bus, path: ConnManNames.managerPath,
                                                interface: ConnManNames.managerInterface, member: "GetProperties",
                                                timeout: callTimeout)
            let services = try await bus.call(destination: ConnManNames.bus, path: ConnManNames.managerPath,
                                              interface: ConnManNames.managerInterface, member: "GetServices",
                                              timeout: callTimeout)
            guard case .dictionary(_, _, let entries)? = properties.first, let list = services.first else {
                state.failure = DBusError.failed("ConnMan's GetProperties or GetServices answered an unexpected shape")
                return
            }
            state.managerState = ""
            state.offlineMode = false
            for entry in entries {
                if let name = entry.key.stringValue { state.applyManager(name, entry.value) }
            }
            state.services = [:]
            state.applyServices(ConnManServiceProperties.entries(list), removed: [])
            state.read = true
        } catch {
            // ConnMan claims its name before it exports its objects: a first read may fail, and is retried.
            state.failure = error as? DBusError ?? DBusError.failed("\(error)")
        }
    }
}
