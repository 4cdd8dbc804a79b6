import ReachdDBus
import ReachdEventLoops
import ReachdTestSupport
import Testing

/// One event loop lent to several connections.
@Suite("An event loop lent to connections", .timeLimit(.minutes(1)))
struct LentLoopTests {
    @Test("two connections on one lent loop both work, and closing one leaves the loop serving the other")
    func lentLoopOutlivesAConnection() async throws {
        try await withPrivateBus { bus in
            let loop = try EventLoop(name: "test-lent")
            do {
                let first = try await Connection.open(address: bus.address, loop: loop)
                let second = try await Connection.open(address: bus.address, loop: loop)
                let (firstLoop, secondLoop) = (await first.loop, await second.loop)
                #expect(firstLoop === loop && secondLoop === loop)
                let id = try await first.call(destination: .bus, path: "/org/freedesktop/DBus", interface: .bus, member: "GetId")
                await first.close()
                let again = try await second.call(destination: .bus, path: "/org/freedesktop/DBus", interface: .bus, member: "GetId")
                #expect(again == id, "the second connection still answers after the first closed")
                await second.close()
            }
            // The connections' deinits are queued on the loop by now; it runs them before it stops.
            loop.shutdown()
        }
    }
}
