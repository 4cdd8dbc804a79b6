@testable import ReachdEngine
import Glibc
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

    @Test func runnableCountIsEveryClientsPendingJobsUpToItsFreePlaces() {
        var queue = FairQueue<String>(perClientLimit: 2)
        for index in 1...5 { queue.enqueue("a\(index)", for: "A") }
        #expect(queue.runnableCount == 2, "A may run two at once")
        queue.enqueue("b1", for: "B")
        #expect(queue.runnableCount == 3)
        _ = queue.next()  // a1 runs
        #expect(queue.runnableCount == 2, "one more of A's, and B's")
        _ = queue.next()  // b1 runs
        _ = queue.next()  // a2 runs
        #expect(queue.runnableCount == 0, "A is at its cap, B has nothing left")
    }

    /// Issue 29, 7b: client A's burst of slow lookups arrives while one thread is idle; client B's
    /// one lookup must still get a thread of its own at once, not wait for A's lookups to end.
    @Test func anotherClientsJobRunsAtOnceWhileOneClientsBurstHoldsItsCap() async throws {
        let threads = ResolverThreads(maximum: 8, perClientLimit: 2, idleLifetime: .seconds(30))
        // One thread, idle: as after a first lookup has finished.
        let warmedUp = Mutex(false)
        threads.run(for: "warm-up") { warmedUp.withLock { $0 = true } }
        try await waitUntil("the warm-up lookup ran") { warmedUp.withLock { $0 } }
        try await waitUntil("the warm-up thread is idle and alone") { threads.threadCount == 1 }

        // A's lookups hang, as names a DNS server never answers do, until released.
        let release = Mutex(false)
        let runningOfA = Mutex(0)
        for _ in 0..<16 {
            threads.run(for: "A") {
                runningOfA.withLock { $0 += 1 }
                while !release.withLock({ $0 }) { usleep(1_000) }
            }
        }
        defer { release.withLock { $0 = true } }
        try await waitUntil("two of A's lookups run (its cap)") { runningOfA.withLock { $0 } == 2 }

        let ranB = Mutex(false)
        threads.run(for: "B") { ranB.withLock { $0 = true } }
        // No time bound is the test: B's job runs while A's hang (before, it waited for them).
        try await waitUntil("B's lookup ran while A's still hang") { ranB.withLock { $0 } }
        #expect(runningOfA.withLock { $0 } == 2, "A never ran more than its cap")
        #expect(threads.threadCount <= 8)
    }

    private func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("not within 60 s: \(what)")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
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
