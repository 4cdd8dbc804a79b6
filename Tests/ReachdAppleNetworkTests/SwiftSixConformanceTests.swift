import Dispatch
import Network
import ReachdTestSupport
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

    @Test("a started monitor that nobody holds runs until cancel(), as Apple's does; cancelled, it is freed")
    func aStartedMonitorLivesUntilCancelled() async throws {
        weak var held: NWPathMonitor?
        let (paths, delivery) = AsyncStream.makeStream(of: NWPath.self)
        do {
            // As vsanthanam/NetworkReachability's stream(_:) does: start, and keep no reference
            // but the handler's.
            let monitor = NWPathMonitor()
            held = monitor
            monitor.pathUpdateHandler = { delivery.yield($0) }
            monitor.start(queue: DispatchQueue(label: "nobody holds it"))
        }
        var iterator = paths.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first != nil, "the monitor nobody holds delivered its first path")
        // Long after its first delivery it is still there: nothing but its start holds it.
        try await Task.sleep(for: .milliseconds(300))
        do {
            let monitor = try #require(held, "a started monitor was freed before cancel()")
            monitor.cancel()
        }
        // The handler's queue may hold it while a delivery runs: a moment, not for good.
        try await eventually(timeout: .seconds(5), "the cancelled monitor is freed") { held == nil }
    }
}
