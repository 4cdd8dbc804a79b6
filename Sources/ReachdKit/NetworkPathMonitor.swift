import Dispatch
import Synchronization

/// `NWPathMonitor` for Linux: the current `NetworkPath`, then each change, from reachd on the
/// session bus (started by D-Bus activation where it is installed).
///
/// ```swift
/// let monitor = NetworkPathMonitor(prohibitedInterfaceTypes: [.wwan])
/// monitor.pathUpdateHandler = { path in print(path.status, path.availableInterfaces) }
/// monitor.start(queue: .main)
///
/// for await path in NetworkPathMonitor().paths where path.status == .satisfied { break }
/// ```
public final class NetworkPathMonitor: Sendable {
    private struct State {
        var current: NetworkPath
        var handler: (@Sendable (NetworkPath) -> Void)?
        var delivery: Task<Void, Never>?
        /// Each `paths` stream running, by number: `cancel()` finishes them.
        var streams: [Int: AsyncStream<NetworkPath>.Continuation] = [:]
        var nextStream = 0
    }

    private let manager: NetworkReachabilityManager
    private let filter: NetworkPath.InterfaceFilter
    private let state: Mutex<State>

    /// Every interface.
    public convenience init() { self.init(filter: .any) }
    /// Satisfied only through an interface of `requiredInterfaceType` that has an Internet path.
    public convenience init(requiredInterfaceType: InterfaceType) { self.init(filter: .required(requiredInterfaceType)) }
    /// Satisfied only through interfaces of none of these types.
    public convenience init(prohibitedInterfaceTypes: [InterfaceType]) { self.init(filter: .prohibited(prohibitedInterfaceTypes)) }

    /// A monitor seeing interfaces through `filter`, on the session bus at `sessionBusAddress`
    /// (nil: the usual one).
    public init(filter: NetworkPath.InterfaceFilter, sessionBusAddress: String? = nil) {
        self.manager = NetworkReachabilityManager(.defaultRoute, sessionBusAddress: sessionBusAddress)
        self.filter = filter
        self.state = Mutex(State(current: NetworkPath(.unknown, filter: filter)))
    }

    deinit { cancel() }

    /// The last path heard (unsatisfied, level unknown, before the first answer).
    public var currentPath: NetworkPath { state.withLock { $0.current } }

    /// Called with each new path on the queue given to `start(queue:)`.
    public var pathUpdateHandler: (@Sendable (NetworkPath) -> Void)? {
        get { state.withLock { $0.handler } }
        set { state.withLock { $0.handler = newValue } }
    }

    /// Starts delivering paths to `pathUpdateHandler` on `queue`: the current one first.
    public func start(queue: DispatchQueue) {
        let task = Task {
            await self.followPaths { path in
                if let handler = self.state.withLock({ $0.handler }) { queue.async { handler(path) } }
            }
        }
        let earlier = state.withLock { state in
            defer { state.delivery = task }
            return state.delivery
        }
        earlier?.cancel()
    }

    /// Stops delivery and finishes every `paths` stream made so far (a `for await` over one
    /// ends); the connection to reachd is let go.
    public func cancel() {
        let (delivery, streams) = state.withLock { state in
            defer { state.streams = [:] }
            return (state.delivery, Array(state.streams.values))
        }
        delivery?.cancel()
        for stream in streams { stream.finish() }
    }

    /// The current path first, then each change, as long as the stream is consumed and until
    /// `cancel()`.
    public var paths: AsyncStream<NetworkPath> {
        let (stream, continuation) = AsyncStream.makeStream(of: NetworkPath.self, bufferingPolicy: .bufferingNewest(64))
        let number = state.withLock { state in
            defer { state.nextStream += 1 }
            state.streams[state.nextStream] = continuation
            return state.nextStream
        }
        let task = Task {
            await self.followPaths { continuation.yield($0) }
            continuation.finish()
        }
        continuation.onTermination = { [weak self] _ in
            task.cancel()
            self?.state.withLock { _ = $0.streams.removeValue(forKey: number) }
        }
        return stream
    }

    /// Each new path (the current one first) as `currentPath`, then to `deliver`,
    /// until the task is cancelled.
    private func followPaths(_ deliver: (NetworkPath) -> Void) async {
        var last: NetworkPath?
        for await update in manager.updates {
            let path = NetworkPath(update, filter: filter)
            guard path != last else { continue }
            last = path
            state.withLock { $0.current = path }
            deliver(path)
        }
    }
}
