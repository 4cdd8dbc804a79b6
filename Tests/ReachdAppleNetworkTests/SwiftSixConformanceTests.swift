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
}
