import Logging
import ReachabilityCore

/// The one place where reachd's sources meet: every source event comes in
/// here, the next published value is computed from everything known, compared
/// with the last computed value, and only a value that differs is announced
/// (after the settle time, when one is set).
///
/// Because the comparison comes first, an event that changes nothing (a
/// kernel address change while NetworkManager decides) neither announces nor
/// restarts the settle timer, so a chatty kernel cannot postpone a real change.
///
/// The value is computed from NetworkManager's last word and the kernel's
/// paths together (`compute`); a kernel that could not be read (it did not
/// answer a route lookup) gives no value: the last computed value stands, the
/// failure is logged once, and the computation is retried with a bounded backoff.
///
/// ```swift
/// let merger = ChangeMerger(settle: .milliseconds(500), logger: logger,
///                           compute: { snapshot in try value(networkManager: snapshot) },
///                           start: { publisher.setInitial($0) },
///                           announce: { await publish($0) },
///                           sourcesChanged: { reevaluateMonitors() })
/// await merger.receive(.networkManager(snapshot))
/// ```
actor ChangeMerger {
    /// What the sources report, in the order it happened.
    enum Event: Sendable {
        /// NetworkManager's state, or nil when it is absent (or still starting).
        case networkManager(NetworkManagerSnapshot?)
        /// A link, address or route changed in the kernel.
        case kernelChanged
    }

    /// The published value for NetworkManager's last word (nil: absent), read with the kernel's paths.
    typealias Compute = @Sendable (NetworkManagerSnapshot?) throws(RouteLookupFailure) -> PublishedReachability

    private let settle: Duration
    private let logger: Logger
    private let compute: Compute
    private let start: @Sendable (PublishedReachability) -> Void
    private let announce: @Sendable (PublishedReachability) async -> Void
    private let sourcesChanged: @Sendable () -> Void

    /// NetworkManager's last word; meaningful once `heardNetworkManager`.
    private var networkManager: NetworkManagerSnapshot?
    private var heardNetworkManager = false
    /// The last value computed (published, or waiting out the settle time).
    private var computed: PublishedReachability?
    private var settling: Task<Void, Never>?
    private var backoff = RetryBackoff()
    private var retry: Task<Void, Never>?
    private var firstValueWaiters: [CheckedContinuation<PublishedReachability, Never>] = []

    /// `start` receives the first value (before the bus name is claimed, so it
    /// is set, not announced); `announce` each later one; `sourcesChanged` is
    /// told of every event once the first value is known (host monitors follow
    /// the sources themselves).
    init(
        settle: Duration, logger: Logger, compute: @escaping Compute,
        start: @escaping @Sendable (PublishedReachability) -> Void,
        announce: @escaping @Sendable (PublishedReachability) async -> Void,
        sourcesChanged: @escaping @Sendable () -> Void
    ) {
        self.settle = settle
        self.logger = logger
        self.compute = compute
        self.start = start
        self.announce = announce
        self.sourcesChanged = sourcesChanged
    }

    deinit {
        settling?.cancel()
        retry?.cancel()
    }

    /// Takes one source event.
    func receive(_ event: Event) async {
        switch event {
        case .networkManager(let snapshot):
            networkManager = snapshot
            heardNetworkManager = true
        case .kernelChanged:
            // The first value needs NetworkManager's first word (or its absence).
            guard heardNetworkManager else { return }
        }
        let started = computed != nil
        await recompute()
        if started { sourcesChanged() }
    }

    /// The first value, once the sources have given enough to compute it.
    func firstValue() async -> PublishedReachability {
        if let computed { return computed }
        return await withCheckedContinuation { firstValueWaiters.append($0) }
    }

    /// Stops the settle and retry timers (the service is ending).
    func stop() {
        settling?.cancel()
        retry?.cancel()
    }

    private func recompute() async {
        let value: PublishedReachability
        do {
            value = try compute(networkManager)
        } catch {
            noteFailure(error)
            return
        }
        retry?.cancel()
        retry = nil
        if backoff.reset() { logger.notice("the kernel answers route lookups again") }

        guard value != computed else { return }
        guard computed != nil else {
            computed = value
            start(value)
            firstValueWaiters.forEach { $0.resume(returning: value) }
            firstValueWaiters = []
            return
        }
        computed = value
        settling?.cancel()
        settling = nil
        if settle == .zero {
            await announce(value)
        } else {
            settling = Task { [settle] in
                guard (try? await Task.sleep(for: settle)) != nil else { return }
                await self.announceSettled()
            }
        }
    }

    private func announceSettled() async {
        settling = nil
        if let computed { await announce(computed) }
    }

    private func noteFailure(_ error: RouteLookupFailure) {
        if !backoff.isFailing {
            logger.warning("could not read the kernel's paths (\(error)); keeping the last state and retrying")
        }
        guard retry == nil else { return }
        let delay = backoff.next()
        retry = Task {
            guard (try? await Task.sleep(for: delay)) != nil else { return }
            await self.retryNow()
        }
    }

    private func retryNow() async {
        retry = nil
        await recompute()
    }
}
