@_exported import ReachdCore
import Dispatch
import Synchronization

/// AFNetworking's `AFNetworkReachabilityManager`, answered by reachd over D-Bus, or by reachd's
/// engine in this process where no reachd shares its network namespace.
///
/// `shared` and `init()` follow the default route; `init(domain:)` and `init(address:)` follow one
/// host through a monitor the service keeps for this client. `startMonitoring()` delivers the
/// current status at once and then every change of (status, flags) to the handler, on the main
/// queue unless another queue or an actor is chosen (and, with `ReachdKitNotifications`, as the
/// `reachabilityDidChange` notification right after it).
/// `updates` is the Swift-native form: an `AsyncStream` of every change.
///
/// Who answers (`service`, `.automatic` unless chosen, and `REACHD_SERVICE` in the environment):
/// reachd on the session bus if it is running or can be started there, else reachd on the system
/// bus, else the same engine in this process (the kernel; NetworkManager, systemd-networkd or ConnMan when
/// the system bus has them). A reachd that answers for another network namespace is never used.
/// When the provider in use leaves and cannot be started again, the manager moves down that
/// order, and back up when a nearer one appears: each move is one update, with its `service`.
///
/// With a chosen provider (`.session`, `.system`), if reachd is not on the bus the manager asks
/// D-Bus to start it; if it cannot be started it reports `.unknown` and picks the service up as
/// soon as it appears. When the service restarts,
/// the manager reads it afresh (and makes its host monitor again) by itself. A reachd that
/// refuses its configuration (`lastError?.reachdExitStatus == 64`) four times in a row is not
/// started again: the manager waits for the name to appear by other means.
///
/// Safe to use from any thread or task.
///
/// ```swift
/// let manager = NetworkReachabilityManager.shared
/// manager.setReachabilityStatusChangeHandler { status in
///     print("now", status.string)
/// }
/// manager.startMonitoring()
/// ```
public final class NetworkReachabilityManager: Sendable {
    /// The default route (`sharedManager`), answered by the nearest provider.
    public static let shared = NetworkReachabilityManager()

    /// What this manager follows.
    public let target: Target
    /// Who answers it.
    public let service: ServiceChoice
    /// The session bus chosen (`.session(address:)`); nil otherwise.
    public var sessionBusAddress: String? {
        if case .session(let address) = service { return address }
        return nil
    }

    private let state = Mutex(ManagerState())

    /// The default route (`[AFNetworkReachabilityManager manager]`).
    public convenience init() {
        self.init(.defaultRoute)
    }

    /// One DNS name (`managerForDomain:`). The service resolves it again after each network change.
    public convenience init(domain: String) {
        self.init(.domain(domain))
    }

    /// One IPv4 or IPv6 literal (`managerForAddress:`).
    public convenience init(address: String) {
        self.init(.address(address))
    }

    /// A manager for `target`, answered by `service`.
    ///
    /// ```swift
    /// let inContainer = NetworkReachabilityManager(.defaultRoute, service: .inProcess)
    /// ```
    public init(_ target: Target, service: ServiceChoice = .automatic) {
        self.target = target
        self.service = service
    }

    /// A manager for `target` on the session bus at `sessionBusAddress`; nil: the nearest provider.
    public convenience init(_ target: Target, sessionBusAddress: String?) {
        self.init(target, service: sessionBusAddress.map { .session(address: $0) } ?? .automatic)
    }

    deinit {
        // Streams keep their manager alive, so none is left here; the watcher may be.
        let (watcher, delivery, errorStreams) = state.withLock { ($0.watcher, $0.delivery, $0.errorStreams.values) }
        watcher?.stop()
        if case .actor(let continuation) = delivery { continuation.finish() }
        for continuation in errorStreams { continuation.finish() }
    }

    // MARK: Current values

    /// `networkReachabilityStatus`: the last status heard (`.unknown` before the first answer).
    public var networkReachabilityStatus: NetworkReachabilityStatus { state.withLock { $0.update.status } }
    /// The last flags heard.
    public var flags: ReachabilityFlags { state.withLock { $0.update.flags } }
    /// Everything last heard: status, flags, interface, metered, connectivity.
    public var currentUpdate: ReachabilityUpdate { state.withLock { $0.update } }
    public var isReachable: Bool { networkReachabilityStatus.isReachable }
    public var isReachableViaWWAN: Bool { networkReachabilityStatus.isReachableViaWWAN }
    public var isReachableViaWiFi: Bool { networkReachabilityStatus.isReachableViaWiFi }
    /// The status in the language of the process's locale (`LC_ALL`, `LC_MESSAGES`, `LANG`):
    /// English or Simplified Chinese.
    public var localizedNetworkReachabilityStatusString: String {
        networkReachabilityStatus.localizedString(environment: LocaleEnvironment.current)
    }
    /// Why the manager reports `.unknown`, if a call failed (no session bus, the service cannot be
    /// activated, a host was refused); nil once the service answers.
    public var lastError: ReachabilityError? { state.withLock { $0.lastError } }

    // MARK: Monitoring

    /// Starts monitoring: the handler and the notification get the current status as soon as it is
    /// known, then each change. Calling it again delivers the current status again, as AFNetworking does.
    public func startMonitoring() {
        state.withLock { state in
            state.isMonitoring = true
            state.handlerEpoch += 1
            state.lastHandled = nil
            if state.watcher == nil {
                startWatcher(&state)
            } else if state.hasReport {
                deliverStatus(state.update, &state)
            }
        }
    }

    /// Stops delivery to the handler and the notification. Unless an `updates` stream is still
    /// being consumed, the service connection is closed and the host monitor released.
    /// No handler call starts after this returns.
    public func stopMonitoring() {
        let watcher = state.withLock { state in
            state.isMonitoring = false
            state.handlerEpoch += 1
            state.lastHandled = nil
            return state.streams.isEmpty ? stopWatcher(&state) : nil
        }
        watcher?.stop()
    }

    /// Sets what runs right after each handler call, on the handler's queue or actor, in order;
    /// nil removes it. `ReachdKitNotifications` posts `reachabilityDidChange` from here, so this
    /// library needs no Foundation (and apps that do not post notifications do not carry it).
    public func setStatusChangeObserver(_ observer: (@Sendable (NetworkReachabilityManager, ReachabilityUpdate) -> Void)?) {
        state.withLock { $0.statusObserver = observer }
    }

    /// As `setStatusChangeObserver`, also called when the path moves to another interface with the
    /// same status and flags (for the SystemConfiguration product: configd calls back then).
    package func setChangeObserver(includingInterfaceMoves observer: (@Sendable (NetworkReachabilityManager, ReachabilityUpdate) -> Void)?) {
        state.withLock { state in
            state.statusObserver = observer
            state.interfaceMovesAreChanges = observer != nil
        }
    }

    /// Sets the block run on each status change (`setReachabilityStatusChangeBlock:`), on the main
    /// queue, as AFNetworking does. The main queue runs in programs with an async `main` or
    /// `dispatchMain()`; elsewhere choose a queue or an actor. `nil` removes the handler.
    public func setReachabilityStatusChangeHandler(_ handler: (@Sendable (NetworkReachabilityStatus) -> Void)?) {
        setReachabilityStatusChangeHandler(queue: .main, handler)
    }

    /// Sets the block run on each status change, on `queue` (a serial queue keeps the order).
    /// The status observer runs on the same queue, right after the handler.
    public func setReachabilityStatusChangeHandler(
        queue: DispatchQueue, _ handler: (@Sendable (NetworkReachabilityStatus) -> Void)?
    ) {
        replaceDelivery(with: .queue(queue, handler: handler))
    }

    /// Sets the handler run on each status change isolated to `actor`, one call after the other in order.
    /// The status observer runs after each call.
    ///
    /// ```swift
    /// manager.setReachabilityStatusChangeHandler(on: MainActor.shared) { _, status in label.text = "\(status)" }
    /// ```
    public func setReachabilityStatusChangeHandler<A: Actor>(
        on actor: A, _ handler: @escaping @Sendable (isolated A, NetworkReachabilityStatus) -> Void
    ) {
        let (changes, continuation) = AsyncStream.makeStream(of: StatusChange.self)
        Task { [weak self] in
            for await change in changes {
                guard let self, self.isCurrent(change.epoch) else { continue }
                await handler(actor, change.update.status)
                self.observeStatus(change.update)
            }
        }
        replaceDelivery(with: .actor(continuation))
    }

    /// Every change of what the service publishes for this target, starting with the current value.
    ///
    /// Consuming a stream monitors by itself (no `startMonitoring()` needed) and keeps the manager
    /// alive; the connection and host monitor are let go once no stream is consumed and monitoring
    /// is stopped. A consumer that falls 256 values behind loses the oldest ones.
    ///
    /// ```swift
    /// for await update in NetworkReachabilityManager.shared.updates where update.isReachable {
    ///     print("online via", update.interfaceType)
    ///     break
    /// }
    /// ```
    public var updates: AsyncStream<ReachabilityUpdate> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: ReachabilityUpdate.self, bufferingPolicy: .bufferingNewest(256))
        let id = state.withLock { state in
            state.nextStreamID += 1
            state.streams[state.nextStreamID] = continuation
            if state.watcher == nil {
                startWatcher(&state)
            } else if state.hasReport {
                continuation.yield(state.update)
            }
            return state.nextStreamID
        }
        // Holds the manager until the consumer lets the stream go.
        continuation.onTermination = { _ in self.streamEnded(id) }
        return stream
    }

    /// `lastError` as it changes: its value now, then each change — a new reason the service
    /// cannot be reached or refused, or nil once it answers. A failure repeated by the manager's
    /// retries is no change. Consuming this stream does not monitor by itself: consume `updates`
    /// or call `startMonitoring()` beside it. It ends when the manager goes away.
    ///
    /// ```swift
    /// let manager = NetworkReachabilityManager.shared
    /// Task {
    ///     for await error in manager.lastErrorUpdates {
    ///         print(error.map { "waiting: \($0.message)" } ?? "the service answers")
    ///     }
    /// }
    /// for await update in manager.updates { print(update.status) }
    /// ```
    public var lastErrorUpdates: AsyncStream<ReachabilityError?> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: ReachabilityError?.self, bufferingPolicy: .bufferingNewest(16))
        let id = state.withLock { state in
            state.nextStreamID += 1
            state.errorStreams[state.nextStreamID] = continuation
            continuation.yield(state.lastError)
            return state.nextStreamID
        }
        // Weak: unlike `updates`, this stream does not keep the manager (and its watch) alive.
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.errorStreams.removeValue(forKey: id) }
        }
        return stream
    }

    // MARK: Internals

    private func streamEnded(_ id: Int) {
        let watcher = state.withLock { state in
            state.streams[id] = nil
            return state.streams.isEmpty && !state.isMonitoring ? stopWatcher(&state) : nil
        }
        watcher?.stop()
    }

    private func startWatcher(_ state: inout ManagerState) {
        state.watcherID += 1
        state.hasReport = false
        let id = state.watcherID
        state.watcher = ReachabilityWatcher(
            target: target, service: service,
            report: { [weak self] update in self?.receive(update, from: id) },
            reportError: { [weak self] error in self?.receive(error, from: id) })
    }

    private func stopWatcher(_ state: inout ManagerState) -> ReachabilityWatcher? {
        defer { state.watcher = nil }
        return state.watcher
    }

    /// A new value from the watcher. Everything is handed on under the lock so that no later
    /// value can overtake it (yielding and enqueueing never call back into this manager).
    private func receive(_ update: ReachabilityUpdate, from watcherID: Int) {
        state.withLock { state in
            guard state.watcherID == watcherID, state.watcher != nil else { return }
            state.update = update
            state.hasReport = true
            for continuation in state.streams.values { continuation.yield(update) }
            guard state.isMonitoring else { return }
            if let last = state.lastHandled, last.status == update.status, last.flags == update.flags,
               !state.interfaceMovesAreChanges || last.interface == update.interface { return }
            deliverStatus(update, &state)
        }
    }

    private func receive(_ error: ReachabilityError?, from watcherID: Int) {
        state.withLock { state in
            guard state.watcherID == watcherID, state.lastError != error else { return }
            state.lastError = error
            for continuation in state.errorStreams.values { continuation.yield(error) }
        }
    }

    private func deliverStatus(_ update: ReachabilityUpdate, _ state: inout ManagerState) {
        state.lastHandled = update
        let change = StatusChange(epoch: state.handlerEpoch, update: update)
        switch state.delivery {
        case .queue(let queue, let handler):
            queue.async {
                guard self.isCurrent(change.epoch) else { return }
                handler?(change.update.status)
                self.observeStatus(change.update)
            }
        case .actor(let continuation):
            continuation.yield(change)
        }
    }

    private func replaceDelivery(with delivery: StatusDelivery) {
        let old = state.withLock { state in
            defer { state.delivery = delivery }
            return state.delivery
        }
        if case .actor(let continuation) = old { continuation.finish() }
    }

    private func isCurrent(_ epoch: Int) -> Bool {
        state.withLock { $0.isMonitoring && $0.handlerEpoch == epoch }
    }

    private func observeStatus(_ update: ReachabilityUpdate) {
        state.withLock { $0.statusObserver }?(self, update)
    }
}
