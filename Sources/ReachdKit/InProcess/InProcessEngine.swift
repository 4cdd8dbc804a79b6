internal import ReachdDBus
internal import ReachdEventLoops
import Glibc
internal import Logging
internal import ReachdContract
internal import ReachdEngine
import Synchronization

/// reachd's engine in this process, for when no reachd shares its network namespace (contract 4,
/// §3): the same sources, merger and host monitors reachd runs, no logic copied. One engine serves
/// every manager of the process; it starts with the first user and stops with the last.
///
/// It costs one thread (the loop that watches its netlink socket and its system bus connection)
/// and sleeps while the network is quiet: no timer, no system call. The loop, once made, stays
/// for the life of the process (asleep in epoll_wait when no engine runs), so that an engine
/// that stops can always finish on it: its sockets are closed on the loop that watches them.
final class InProcessEngine: Sendable {
    static let shared = InProcessEngine()

    private struct Running: Sendable {
        let engine: ReachdEngine
        let hosts: InProcessHostMonitors
    }

    private struct State {
        var running: Running?
        var starting: Task<Running, any Error>?
        var users = 0
        var value = PublishedReachability.unknown
        var subscribers: [Int: AsyncStream<PublishedReachability>.Continuation] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())
    private let sharedLoop = Mutex<EventLoop?>(nil)

    /// One user of the engine: its values as they change, from the current one.
    struct Subscription: Sendable {
        let values: AsyncStream<PublishedReachability>
        fileprivate let id: Int
    }

    /// Starts the engine if it is not running and subscribes to its values (the current first).
    func subscribe() async throws(ReachabilityError) -> Subscription {
        _ = try await acquire()
        let (values, continuation) = AsyncStream.makeStream(of: PublishedReachability.self, bufferingPolicy: .bufferingNewest(64))
        let id = state.withLock { state in
            state.nextID += 1
            state.subscribers[state.nextID] = continuation
            continuation.yield(state.value)
            return state.nextID
        }
        return Subscription(values: values, id: id)
    }

    func unsubscribe(_ subscription: Subscription) async {
        let continuation = state.withLock { $0.subscribers.removeValue(forKey: subscription.id) }
        continuation?.finish()
        await release()
    }

    /// The engine's value now, starting it for the question.
    func value() async throws(ReachabilityError) -> PublishedReachability {
        _ = try await acquire()
        defer { Task { await release() } }
        return state.withLock { $0.value }
    }

    /// `CheckHost` in this process.
    func checkHost(_ host: String) async throws(ReachabilityError) -> HostReport {
        let specification: HostSpecification
        do {
            specification = try HostSpecification(domain: host)
        } catch {
            throw ReachabilityError(error)
        }
        let running = try await acquire()
        defer { Task { await release() } }
        do {
            return try await running.engine.hosts.check(specification, for: Self.account)
        } catch {
            throw ReachabilityError(error)
        }
    }

    /// A host monitor in this process: its reports as they change, from the first.
    func watch(_ target: NetworkReachabilityManager.Target) async throws(ReachabilityError) -> HostWatch {
        guard let request = target.monitorRequest else {
            throw ReachabilityError(name: ReachabilityError.notSupported, message: "the default route has no host monitor")
        }
        let specification: HostSpecification
        do {
            specification = request.method == ReachdContract.managerForAddress
                ? try HostSpecification(address: request.host) : try HostSpecification(domain: request.host)
        } catch {
            throw ReachabilityError(error)
        }
        let running = try await acquire()
        let owner = "in-process-\(state.withLock { $0.nextID += 1; return $0.nextID })"
        let reports = running.hosts.follow(owner)
        do {
            let monitor = try await running.engine.hosts.create(host: specification, owner: owner, account: Self.account)
            return HostWatch(monitor: monitor, reports: reports, first: monitor.current, registry: running.engine.hosts,
                             hosts: running.hosts)
        } catch {
            running.hosts.stopFollowing(owner)
            await release()
            throw ReachabilityError(error)
        }
    }

    /// A host monitor of a manager in this process.
    struct HostWatch: Sendable {
        fileprivate let monitor: HostMonitor
        let reports: AsyncStream<HostReport>
        let first: HostReport
        fileprivate let registry: HostMonitorRegistry
        fileprivate let hosts: InProcessHostMonitors
    }

    func release(_ watch: HostWatch) async {
        try? watch.registry.release(watch.monitor, by: watch.monitor.owner)
        watch.hosts.stopFollowing(watch.monitor.owner)
        await release()
    }

    /// Every in-process monitor and lookup counts as the app's own: it shares no resolver with
    /// anyone, so there is no one to be fair to.
    private static let account = "this process"

    // MARK: Starting and stopping

    private func acquire() async throws(ReachabilityError) -> Running {
        enum Next { case running(Running), wait(Task<Running, any Error>) }
        let next = state.withLock { state -> Next in
            state.users += 1
            if let running = state.running { return .running(running) }
            if let starting = state.starting { return .wait(starting) }
            let starting = Task { try await self.start() }
            state.starting = starting
            return .wait(starting)
        }
        switch next {
        case .running(let running):
            return running
        case .wait(let starting):
            do {
                let running = try await starting.value
                state.withLock { state in
                    if state.starting != nil { state.running = running; state.starting = nil }
                }
                return running
            } catch {
                state.withLock { state in
                    state.users -= 1
                    state.starting = nil
                }
                throw ReachabilityError(name: ReachabilityError.inProcessFailed,
                                        message: "reachd's engine could not start in this process: \(error)")
            }
        }
    }

    private func release() async {
        let stopping = state.withLock { state -> Running? in
            state.users -= 1
            guard state.users == 0, let running = state.running else { return nil }
            state.running = nil
            state.value = .unknown
            return running
        }
        guard let stopping else { return }
        await stopping.engine.stop()
    }

    private func start() async throws -> Running {
        let loop = try sharedLoop.withLock { shared in
            if let shared { return shared }
            let loop = try EventLoop(name: "reachability engine")
            shared = loop
            return loop
        }
        var configuration = try Self.configuration()
        // Another namespace's NetworkManager (the host's, through its bus socket) is no source here,
        // from the first answer on.
        if configuration.usesSystemBus,
           let devices = await NetworkManagerNamespace.foreignDevices(systemBusAddress: configuration.systemBusAddress, loop: loop) {
            Self.logger.notice("NetworkManager on the system bus manages \(devices.joined(separator: ", ")), no link of this network namespace: following the kernel's routes")
            configuration.usesSystemBus = false
        }
        let hosts = InProcessHostMonitors()
        let engine = try ReachdEngine(
            configuration: configuration, logger: Self.logger, loop: loop, hostSink: hosts,
            initial: { [self] value in state.withLock { $0.value = value } },
            announce: { [self] value in broadcast(value) })
        do {
            _ = try await engine.start()
        } catch {
            await engine.stop()
            throw error
        }
        return Running(engine: engine, hosts: hosts)
    }

    private func broadcast(_ value: PublishedReachability) {
        state.withLock { state in
            state.value = value
            for continuation in state.subscribers.values { continuation.yield(value) }
        }
    }

    /// The engine as reachd's defaults have it, with the system bus the process would use, and
    /// reachd's own connectivity check where `REACHD_CONNECTIVITY_URI` names one.
    private static func configuration() throws -> EngineConfiguration {
        var configuration = EngineConfiguration()
        // Every monitor here is this process's own: the per-client cap that shares a reachd
        // between clients has no one to share with, so the process gets the whole allowance.
        configuration.maximumMonitorsPerClient = configuration.maximumMonitors
        if let uri = environment("REACHD_CONNECTIVITY_URI"), !uri.isEmpty {
            configuration.connectivityCheck = try ConnectivityCheckConfiguration(
                uri: uri, response: environment("REACHD_CONNECTIVITY_RESPONSE") ?? "NetworkManager is online",
                userAgent: "reachd (in-process)")
        }
        return configuration
    }

    private static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Quiet: an app's standard error is the app's. `REACHD_LOG_LEVEL` (debug, info, …) lets the
    /// engine say what it sees there, as reachd would in its log.
    private static let logger: Logger = {
        guard let level = environment("REACHD_LOG_LEVEL").flatMap(Logger.Level.init(rawValue:)) else {
            return Logger(label: "reachability", factory: { _ in SwiftLogNoOpLogHandler() })
        }
        var logger = Logger(label: "reachability", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = level
        return logger
    }()
}

/// The engine's host monitors, handed to the managers of this process: each report is stored and
/// passed on under one lock, so a manager sees them in the order they were made.
final class InProcessHostMonitors: HostMonitorSink {
    private let followers = Mutex<[String: AsyncStream<HostReport>.Continuation]>([:])

    /// The reports of the monitor `owner` will make.
    func follow(_ owner: String) -> AsyncStream<HostReport> {
        let (reports, continuation) = AsyncStream.makeStream(of: HostReport.self, bufferingPolicy: .bufferingNewest(64))
        followers.withLock { $0[owner] = continuation }
        return reports
    }

    func stopFollowing(_ owner: String) {
        followers.withLock { $0.removeValue(forKey: owner) }?.finish()
    }

    func attach(_ monitor: HostMonitor, registry: HostMonitorRegistry) async throws {}

    func detach(_ monitors: [HostMonitor]) async {
        for monitor in monitors { stopFollowing(monitor.owner) }
    }

    func publish(_ updates: [(HostMonitor, HostReport)]) async {
        followers.withLock { followers in
            for (monitor, report) in updates {
                let old = monitor.exchange(report)
                guard !report.changedProperties(from: old).isEmpty else { continue }
                followers[monitor.owner]?.yield(report)
            }
        }
    }

    func countChanged() async {}
}

extension ReachabilityUpdate {
    /// What the engine in this process publishes, read through the contract's property table as
    /// reachd's properties are: the same values a bus client reads.
    init(inProcess value: PublishedReachability) {
        self = .unknown
        apply(Dictionary(uniqueKeysWithValues: PublishedReachability.contractProperties.map { ($0.name, $0.read(value)) }))
        service = .inProcess
    }

    /// A host monitor's report in this process, read through the monitor's property table.
    init(inProcess report: HostReport) {
        self = .unknown
        apply(Dictionary(uniqueKeysWithValues: HostReport.contractProperties.map { ($0.name, $0.read(report)) }))
        service = .inProcess
    }
}
