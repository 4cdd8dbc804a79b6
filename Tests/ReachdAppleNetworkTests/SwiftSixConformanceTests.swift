import Dispatch
import Network
import Testing

/// What the fixtures do in Swift 5 mode, in Swift 6 mode: NWPathMonitor conforms to a protocol
/// that spells Apple's members, and serves through it.
protocol NetworkPathMonitoring: AnyObject, Sendable {
    var pathUpdateHandler: (@Sendable (_ newPath: NWPath) -> Void)? { get set }
    var currentPath: NWPath { get }
    var queue: DispatchQueue? { get }
    func start(queue: DispatchQueue)
    func cancel()
}

extension NWPathMonitor: NetworkPathMonitoring {}

@Suite("NWPathMonitor through a protocol of Apple's members, in Swift 6 mode", .timeLimit(.minutes(1)))
struct SwiftSixConformanceTests {
    @Test("a path arrives through the protocol, on the queue the protocol was given")
    func pathThroughTheProtocol() async {
        let monitor: any NetworkPathMonitoring = NWPathMonitor(prohibitedInterfaceTypes: [.cellular])
        defer { monitor.cancel() }
        let queue = DispatchQueue(label: "through a protocol")
        let (paths, delivery) = AsyncStream.makeStream(of: NWPath.self)
        monitor.pathUpdateHandler = { path in
            dispatchPrecondition(condition: .onQueue(queue))
            delivery.yield(path)
        }
        monitor.start(queue: queue)
        #expect(monitor.queue?.label == "through a protocol")
        var iterator = paths.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.status == .satisfied && first?.usesInterfaceType(.cellular) == false)
        #expect(monitor.currentPath == first)
    }

    @Test("a started monitor that is let go is freed and stops, as on Apple's systems: nothing keeps it alive")
    func aReleasedMonitorIsFreed() async throws {
        weak var released: NWPathMonitor?
        do {
            let monitor = NWPathMonitor()
            released = monitor
            let (paths, delivery) = AsyncStream.makeStream(of: NWPath.self)
            monitor.pathUpdateHandler = { delivery.yield($0) }
            monitor.start(queue: DispatchQueue(label: "let go"))
            var iterator = paths.makeAsyncIterator()
            _ = await iterator.next()
        }
        // The handler's queue holds the monitor while a delivery runs: a moment, not for good.
        let deadline = ContinuousClock.now + .seconds(5)
        while released != nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(released == nil, "the handler, the queue or the library's delivery kept the monitor")
    }
}
