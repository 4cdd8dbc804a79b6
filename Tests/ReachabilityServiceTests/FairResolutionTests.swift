@testable import ReachabilityService
import Synchronization
import Testing

/// How resolver threads are shared: round-robin between clients, a cap per
/// client, /etc/hosts answered without a thread, idle threads gone.
@Suite("Fair resolution")
struct FairResolutionTests {
    @Test func clientsTakeTurnsWhateverTheOrderTheyAsked() {
        var queue = FairQueue<String>(perClientLimit: 8)
        for name in ["a1", "a2", "a3"] { queue.enqueue(name, for: "A") }
        for name in ["b1", "b2"] { queue.enqueue(name, for: "B") }
        queue.enqueue("c1", for: "C")
        var order: [String] = []
        while let (_, job) = queue.next() { order.append(job) }
        #expect(order == ["a1", "b1", "c1", "a2", "b2", "a3"])
    }

    @Test func aClientAtItsCapWaitsWhileOthersRun() {
        var queue = FairQueue<String>(perClientLimit: 2)
        for index in 1...5 { queue.enqueue("a\(index)", for: "A") }
        #expect(queue.next()?.job == "a1")
        #expect(queue.next()?.job == "a2")
        #expect(queue.next() == nil, "A holds two workers already")
        queue.enqueue("b1", for: "B")
        #expect(queue.next()?.job == "b1", "B is not held up by A's queue")
        queue.finished("A")
        #expect(queue.next()?.job == "a3", "A's next one runs once one of its own has finished")
        #expect(queue.pendingCount == 2)
    }

    @Test func hostsFileAnswersLikeTheCLibrarysFilesSource() {
        let table = HostsFile(text: """
            # comment line
            127.0.0.1   localhost
            ::1         localhost ip6-localhost ip6-loopback   # trailing comment
            192.0.2.7\tprinter.lan printer
            not-an-address  broken
            198.51.100.1
            """)
        #expect(table.addresses(of: "localhost")?.map(\.description) == ["127.0.0.1", "::1"])
        #expect(table.addresses(of: "LocalHost.")?.count == 2, "case and a final dot do not matter")
        #expect(table.addresses(of: "printer")?.map(\.description) == ["192.0.2.7"])
        #expect(table.addresses(of: "broken") == nil, "a line without a valid address is skipped")
        #expect(table.addresses(of: "example.org") == nil)
    }

    @Test func namesInTheHostsFileNeverWaitForAThread() async {
        let resolver = Resolver(maximumThreads: 1, hostsFile: { HostsFile(text: "192.0.2.9 listed.test\n") })
        #expect(resolver.isListedLocally("listed.test"))
        #expect(await resolver.resolve("listed.test", for: ":1.1") == .addresses([IPAddress(strict: "192.0.2.9")!]))
        #expect(resolver.threadCount == 0, "no thread was started")
    }

    @Test func idleResolverThreadsExit() async throws {
        let threads = ResolverThreads(maximum: 4, perClientLimit: 2, idleLifetime: .milliseconds(200))
        let done = Mutex(0)
        for client in ["A", "B"] {
            threads.run(for: client) { done.withLock { $0 += 1 } }
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while done.withLock({ $0 }) < 2 || threads.threadCount > 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(done.withLock { $0 } == 2)
        #expect(threads.threadCount == 0, "threads leave after 200 ms without work")
    }
}
