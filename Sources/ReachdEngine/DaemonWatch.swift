import ReachdDBus
import Logging
import Synchronization

/// What one daemon's back end knows and how it reads it: the part that differs between
/// NetworkManager, systemd-networkd and ConnMan. `DaemonWatch` does the rest, alike for all.
///
/// A value is made empty (`init()`) each time the daemon gets a new owner, so nothing read
/// from an earlier process survives; it is asked to read (`synchronize`) only while the
/// daemon has an owner, and every call it makes goes to that owner (`DaemonProxy`).
///
/// To read one more property, extend `synchronize` (or the object reads it already makes)
/// and `apply` (the signal that announces the property's changes), and add it to `Snapshot`.
protocol DaemonModel: Sendable {
    associatedtype Snapshot: Equatable & Sendable
    /// Inputs of the back end's own beside the daemon's signals (a resume, a kernel event).
    associatedtype Event: Sendable

    /// The daemon's well-known name.
    static var busName: BusName { get }
    /// How logs name it: "NetworkManager".
    static var displayName: String { get }
    /// The daemon's signals this back end follows; their sender is `busName`, which the bus
    /// connection checks against the name's owner.
    static var rules: [MatchRule] { get }
    /// Said when the daemon leaves or arrives (at notice where that changes reachd's source).
    static var ownerChangeLevel: Logger.Level { get }
    /// What the log says after the display name when the daemon leaves.
    static var absence: String { get }

    /// Knows nothing yet.
    init()
    /// Reads everything; on a failure sets `failure` and returns.
    mutating func synchronize(_ daemon: DaemonProxy) async
    /// Reads again what a failure left unread (by default, everything).
    mutating func retry(_ daemon: DaemonProxy) async
    /// A signal of the daemon's (from its current owner), in the order it was sent.
    mutating func apply(_ signal: Message, _ daemon: DaemonProxy) async
    /// One of the back end's own inputs.
    mutating func handle(_ event: Event, _ daemon: DaemonProxy) async
    /// The last read's failure, while what is known is incomplete.
    var failure: DBusError? { get }
    /// What the daemon says; nil until it has been read.
    var snapshot: Snapshot? { get }
    /// Said at info after the first read, if anything.
    var firstReadNote: String? { get }
}

extension DaemonModel {
    mutating func retry(_ daemon: DaemonProxy) async { await synchronize(daemon) }
    var firstReadNote: String? { nil }
    static var ownerChangeLevel: Logger.Level { .info }
    static var absence: String { "left the bus" }
}

/// The daemon's current owner, to call: every call goes to the owner's unique name, never to
/// the well-known one, so a call never starts a daemon (bus activation), never reaches one
/// that replaced the process this state was read from, and there is none while nobody owns
/// the name.
struct DaemonProxy: Sendable {
    let bus: Connection
    let owner: BusName
    let logger: Logger
    let callTimeout: Duration

    /// The names with which a service says "no such object here".
    static let vanishedErrors: Set<String> = [
        "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.UnknownMethod",
        "org.freedesktop.DBus.Error.UnknownInterface", "org.freedesktop.DBus.Error.UnknownProperty",
        "org.freedesktop.DBus.Error.InvalidArgs",
    ]

    /// Calls a method of the daemon and returns the reply's body.
    func call(_ path: ObjectPath, _ interface: InterfaceName, _ member: MemberName,
              _ body: [DBusValue] = []) async throws(DBusError) -> [DBusValue] {
        do {
            return try await bus.call(destination: owner, path: path, interface: interface, member: member,
                                      body: body, timeout: callTimeout)
        } catch let error as DBusError {
            throw error
        } catch {
            throw DBusError.failed("\(error)")
        }
    }

    /// The outcome of reading an object's properties.
    enum Read {
        case properties([String: DBusValue])
        /// The object is not there (any more): a fact, not a failure.
        case vanished
        case failed(DBusError)
    }

    /// Every property of `interface` on `path` (`GetAll`), variants unwrapped.
    func properties(of path: ObjectPath, _ interface: InterfaceName) async -> Read {
        do {
            let reply = try await call(path, .properties, "GetAll", [.string(interface.rawValue)])
            guard case .dictionary(_, _, let entries)? = reply.first else { return .properties([:]) }
            var result: [String: DBusValue] = [:]
            for entry in entries {
                if let name = entry.key.stringValue { result[name] = entry.value.unwrappingVariant }
            }
            return .properties(result)
        } catch where Self.vanishedErrors.contains(error.name.rawValue) {
            logger.debug("GetAll \(interface) on \(path): gone (\(error))")
            return .vanished
        } catch {
            return .failed(error)
        }
    }

    /// One property (`Get`), its variant unwrapped; nil when the object or property is not there.
    func property(_ name: String, of path: ObjectPath, _ interface: InterfaceName) async throws(DBusError) -> DBusValue? {
        do {
            return try await call(path, .properties, "Get", [.string(interface.rawValue), .string(name)]).first?.unwrappingVariant
        } catch where Self.vanishedErrors.contains(error.name.rawValue) {
            return nil
        }
    }
}

/// Follows one daemon on the system bus with a `DaemonModel`: the subscription (its signals and
/// its owner, in the bus's order, from `Connection.deliverEvents`), a fresh model per owner, the
/// first read, the retry after a failure with a bounded backoff (docs/design.md, "Errors"), and
/// one report per change.
///
/// While the daemon has no owner nothing runs: no call, no timer.
struct DaemonWatch<Model: DaemonModel>: Sendable {
    let bus: Connection
    let logger: Logger
    let callTimeout: Duration

    private enum Input: Sendable {
        case signal(Message)
        case owner(BusName?)
        case event(Model.Event)
        case retry(generation: Int)
    }

    /// Errors that mean the owner left while a call was under way: its `NameOwnerChanged` follows
    /// at once, so there is nothing to retry and nothing to warn about.
    private static var ownerGoneErrors: Set<String> {
        ["org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner"]
    }

    /// Calls `report` with the daemon's state (nil while it has no owner, or is not read yet):
    /// first once its owner is known and, if it has one, its state read, then after each change
    /// that alters the snapshot. Returns when the task is cancelled or the bus goes away.
    func run(events: AsyncStream<Model.Event>, report: @Sendable (Model.Snapshot?) async -> Void) async throws {
        // The inputs queue up here; the stream only wakes the loop, which takes all there are, so
        // that a change a daemon says in several signals at once is reported once.
        let queue = Mutex<[Input]>([])
        let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let push: @Sendable (Input) -> Void = { input in
            queue.withLock { $0.append(input) }
            wake.yield()
        }
        let forwarding = Task { for await event in events { push(.event(event)) } }
        defer { forwarding.cancel() }
        try await bus.deliverEvents(matchingAny: Model.rules, watching: [Model.busName], to: wake) { event in
            switch event {
            case .signal(let message): queue.withLock { $0.append(.signal(message)) }
            case .ownerChanged(_, let owner): queue.withLock { $0.append(.owner(owner)) }
            }
        }

        var model = Model()
        var proxy: DaemonProxy?
        var ownerKnown = false
        var backoff = RetryBackoff()
        var retry: Task<Void, Never>?
        var generation = 0
        var last: Model.Snapshot??
        defer { retry?.cancel() }

        for await _ in wakes {
            let batch = queue.withLock { inputs in
                defer { inputs = [] }
                return inputs
            }
            for input in batch {
                switch input {
                case .owner(let owner):
                    if ownerKnown {
                        logger.log(level: Model.ownerChangeLevel, "\(Model.displayName) \(owner.map { "is on the bus as \($0)" } ?? Model.absence)")
                    }
                    ownerKnown = true
                    model = Model()
                    proxy = owner.map { DaemonProxy(bus: bus, owner: $0, logger: logger, callTimeout: callTimeout) }
                    generation += 1
                    retry?.cancel()
                    retry = nil
                    backoff.reset()
                    if let proxy { await model.synchronize(proxy) }
                case .retry(let round):
                    guard round == generation, let proxy else { continue }
                    retry = nil
                    await model.retry(proxy)
                case .signal(let signal):
                    guard let proxy else { continue }
                    await model.apply(signal, proxy)
                case .event(let event):
                    guard let proxy else { continue }
                    await model.handle(event, proxy)
                }
            }
            guard ownerKnown else { continue }
            if let failure = model.failure {
                // While a read is owed, what is known is incomplete: keep the last report.
                if retry == nil, proxy != nil, !Self.ownerGoneErrors.contains(failure.name.rawValue) {
                    if !backoff.isFailing {
                        logger.warning("reading \(Model.displayName) failed (\(failure)); keeping the last state and retrying")
                    }
                    let delay = backoff.next(), round = generation
                    retry = Task {
                        guard (try? await Task.sleep(for: delay)) != nil else { return }
                        push(.retry(generation: round))
                    }
                }
                // The first report is due even when the first read failed: there is no earlier
                // value to keep, and the kernel's view is a fact.
                guard last == nil else { continue }
            } else if backoff.reset() {
                logger.notice("\(Model.displayName) answers again; its state is current")
            }
            let snapshot = proxy == nil ? nil : model.snapshot
            if last == nil, proxy != nil, let note = model.firstReadNote { logger.info("\(note)") }
            if last != .some(snapshot) {
                last = .some(snapshot)
                await report(snapshot)
            }
        }
    }
}

extension DaemonWatch where Model.Event == Void {
    /// `run(events:report:)` for NetworkManager and ConnMan: each element of `resyncs` (a resume
    /// from sleep) has everything read again, as at start, in case a change was missed.
    func run(resyncs: AsyncStream<Void> = AsyncStream { $0.finish() },
             report: @Sendable (Model.Snapshot?) async -> Void) async throws {
        try await run(events: resyncs, report: report)
    }

    /// `run(events:report:)` for systemd-networkd: each element of `linkChanges` (the kernel saw a
    /// link, address or route change) lists the links again.
    func run(linkChanges: AsyncStream<Void>, report: @Sendable (Model.Snapshot?) async -> Void) async throws {
        try await run(events: linkChanges, report: report)
    }
}
