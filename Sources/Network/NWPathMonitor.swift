import Glibc
internal import ReachdKit
import Synchronization

/// Apple's `NWPathMonitor` on Linux: the path now, then each change, from reachd (on the session
/// bus, else the system bus) or, where no reachd shares this network namespace, from reachd's
/// engine run in this process. A front end over the library's `NetworkPathMonitor`.
///
/// ```swift
/// let monitor = NWPathMonitor()
/// monitor.pathUpdateHandler = { path in print(path.status == .satisfied ? "online" : "offline") }
/// monitor.start(queue: DispatchQueue(label: "NetworkMonitor"))
///
/// for await path in NWPathMonitor(requiredInterfaceType: .wifi) where path.status == .satisfied { break }
/// ```
public final class NWPathMonitor: Sendable, CustomDebugStringConvertible {
    private struct State {
        var handler: (@Sendable (_ newPath: NWPath) -> Void)?
        var queue: DispatchQueue?
        var started = false
        var cancelled = false
        /// The last path translated, and the library's path it came from.
        var translated: (source: NetworkPath, path: NWPath)?
        /// The last path handed to the handler.
        var delivered: NWPath?
        /// The monitor itself, from `start(queue:)` to `cancel()`: Apple's runs until it is cancelled
        /// whether or not the app holds it, and published code relies on that (a stream that starts a
        /// monitor and keeps no reference but its handler's; a `weak var` for a started monitor).
        var keptWhileStarted: NWPathMonitor?
    }

    private let paths: NetworkPathMonitor
    private let state = Mutex(State())

    /// A monitor of every interface type.
    public convenience init() {
        self.init(paths: NetworkPathMonitor())
    }

    /// A monitor satisfied only through an interface of `requiredInterfaceType`.
    public convenience init(requiredInterfaceType: NWInterface.InterfaceType) {
        self.init(paths: NetworkPathMonitor(filter: NWInterface.InterfaceType.filter(requiring: requiredInterfaceType)))
    }

    /// A monitor that never uses an interface of these types.
    public convenience init(prohibitedInterfaceTypes: [NWInterface.InterfaceType]) {
        self.init(paths: NetworkPathMonitor(filter: NWInterface.InterfaceType.filter(prohibiting: prohibitedInterfaceTypes)))
    }

    private init(paths: NetworkPathMonitor) {
        self.paths = paths
    }

    deinit { paths.cancel() }

    /// Called on `queue` with each new path, the current one first, from `start(queue:)` until
    /// `cancel()`, whether or not the app keeps a reference to the monitor meanwhile.
    @preconcurrency public var pathUpdateHandler: (@Sendable (_ newPath: NWPath) -> Void)? {
        get { state.withLock { $0.handler } }
        set { state.withLock { $0.handler = newValue } }
    }

    /// The last path heard (unsatisfied, with no interfaces, before the first answer).
    public var currentPath: NWPath { translated(paths.currentPath) }

    /// The queue given to `start(queue:)`, nil before.
    public var queue: DispatchQueue? { state.withLock { $0.queue } }

    /// Starts delivering paths to `pathUpdateHandler` on `queue`. A monitor starts once: later
    /// calls, and calls after `cancel()`, do nothing (as on Apple's systems).
    public func start(queue: DispatchQueue) {
        let first = state.withLock { state in
            guard !state.started, !state.cancelled else { return false }
            state.started = true
            state.queue = queue
            state.keptWhileStarted = self
            return true
        }
        guard first else { return }
        paths.pathUpdateHandler = { [weak self] path in self?.deliver(path) }
        paths.start(queue: queue)
    }

    /// Stops delivery for good: once it returns, `pathUpdateHandler` is not called again and every
    /// `for await` over the monitor ends.
    public func cancel() {
        // The caller holds `self` for the rest of this call: the last release comes after it.
        state.withLock { state in
            state.cancelled = true
            state.keptWhileStarted = nil
        }
        paths.cancel()
    }

    public var debugDescription: String { "NWPathMonitor: \(currentPath.debugDescription)" }

    /// On the monitor's queue: the handler, unless cancelled meanwhile. A change of what only the
    /// library's path carries (its level, its flags) is no change of `NWPath`: no call.
    private func deliver(_ source: NetworkPath) {
        guard !state.withLock({ $0.cancelled }) else { return }
        let path = translated(source)
        let handler = state.withLock { state -> (@Sendable (NWPath) -> Void)? in
            guard !state.cancelled, state.delivered != path else { return nil }
            state.delivered = path
            return state.handler
        }
        handler?(path)
    }

    /// `source` in Apple's names, translated once per new path (interface indexes are looked up).
    private func translated(_ source: NetworkPath) -> NWPath {
        if let known = state.withLock({ $0.translated }), known.source == source { return known.path }
        let path = NWPath(source, interfaceIndex: Self.interfaceIndex)
        state.withLock { $0.translated = (source, path) }
        return path
    }

    static func interfaceIndex(_ name: String) -> Int { Int(if_nametoindex(name)) }
}

/// `for await path in monitor`: the current path first, then each change, for as long as the
/// loop runs (no `start(queue:)` needed, as on Apple's systems) and until `cancel()`, which ends
/// every loop over the monitor. The loop holds the monitor, so `for await path in NWPathMonitor()`
/// keeps it running.
extension NWPathMonitor: AsyncSequence {
    public typealias Element = NWPath
    public typealias AsyncIterator = Iterator

    public struct Iterator: AsyncIteratorProtocol {
        private let monitor: NWPathMonitor
        private var source: AsyncStream<NetworkPath>.Iterator
        private var last: NWPath?

        fileprivate init(_ monitor: NWPathMonitor) {
            self.monitor = monitor
            source = monitor.paths.paths.makeAsyncIterator()
        }

        /// The next path that differs from the last one returned; nil once the monitor is cancelled.
        public mutating func next() async -> NWPath? {
            while !monitor.isCancelled, let update = await source.next() {
                // A path already queued when cancel() came is not handed out.
                guard !monitor.isCancelled else { return nil }
                let path = NWPath(update, interfaceIndex: NWPathMonitor.interfaceIndex)
                guard path != last else { continue }
                last = path
                return path
            }
            return nil
        }
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(self)
    }

    fileprivate var isCancelled: Bool { state.withLock { $0.cancelled } }
}
