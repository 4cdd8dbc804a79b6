import ReachdEventLoops
import Foundation
import Glibc
import Synchronization
import Testing

/// The event loop on a thread the caller provides, as reachd runs its main thread.
@Suite("An event loop on the caller's thread", .timeLimit(.minutes(1)))
struct CallerThreadTests {
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
        let deadline = ContinuousClock.now + .seconds(10)
        while !runner.returned.load(ordering: .acquiring) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let returned = runner.returned.load(ordering: .acquiring)
        #expect(returned, "run() returns after shutdown()")
    }
}
