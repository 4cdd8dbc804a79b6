import DBus
import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

/// The event loop on a thread the caller provides (how reachd runs its main
/// thread), and one loop lent to several connections.
@Suite("Event loops on the caller's thread, lent to connections", .timeLimit(.minutes(1)))
struct EventLoopTests {
    /// Runs `loop` on a thread of its own, as a program's main thread would.
    final class Runner: Sendable {
        let returned = Atomic<Bool>(false)
        let threadID = Mutex<UInt>(0)

        init(_ loop: EventLoop) {
            Thread { [self] in
                threadID.withLock { $0 = UInt(pthread_self()) }
                loop.run()
                returned.store(true, ordering: .releasing)
            }.start()
        }
    }

    actor Counter {
        nonisolated let loop: EventLoop
        nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }
        var count = 0
        init(loop: EventLoop) { self.loop = loop }
        func increment() -> (count: Int, onLoop: Bool, thread: UInt) {
            count += 1
            return (count, loop.isOnLoopThread, UInt(pthread_self()))
        }
    }

    @Test("a loop for the caller's thread runs its actors' work on the thread that calls run(), and run() returns after shutdown()")
    func callerThreadLoop() async throws {
        let loop = try EventLoop(name: "test-caller", thread: .caller)
        let counter = Counter(loop: loop)
        let runner = Runner(loop)
        for expected in 1...100 {
            let (count, onLoop, thread) = await counter.increment()
            #expect(count == expected)
            #expect(onLoop)
            #expect(thread == runner.threadID.withLock { $0 })
        }
        loop.shutdown()
        try await eventually(timeout: .seconds(10), "run() returns after shutdown()") {
            runner.returned.load(ordering: .acquiring)
        }
    }

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
