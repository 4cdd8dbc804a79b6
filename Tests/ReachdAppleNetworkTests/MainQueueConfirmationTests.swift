import Dispatch
import Network
import Testing

/// The same as MainQueueExpectationTests, as Swift Testing writes it: a confirmation from a path
/// update handler on the main queue.
@Suite("NWPathMonitor on the main queue, with Swift Testing", .timeLimit(.minutes(1)))
struct MainQueueConfirmationTests {
    @Test("a handler on the main queue confirms a satisfied path")
    func handlerOnTheMainQueueConfirms() async {
        let monitor = NWPathMonitor()
        defer { monitor.cancel() }
        await confirmation("a satisfied path, delivered on the main queue", expectedCount: 1...) { satisfied in
            let (arrived, arrival) = AsyncStream.makeStream(of: Void.self)
            monitor.pathUpdateHandler = { path in
                dispatchPrecondition(condition: .onQueue(.main))
                guard path.status == .satisfied else { return }
                satisfied()
                arrival.yield()
            }
            monitor.start(queue: .main)
            var waiting = arrived.makeAsyncIterator()
            _ = await waiting.next()
        }
    }
}
