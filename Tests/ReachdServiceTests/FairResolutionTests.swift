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
        for name in ["a1", "a2", "a3"] { queue.enqueue(name, for: "A", now: 0) }
        for name in ["b1", "b2"] { queue.enqueue(name, for: "B", now: 0) }
        queue.enqueue("c1", for: "C", now: 0)
        var order: [String] = []
        while let (_, _, job) = queue.next() { order.append(job) }
        #expect(order == ["a1", "b1", "c1", "a2", "b2", "a3"])
    }

    @Test func aClientAtItsCapWaitsWhileOthersRun() {
        var queue = FairQueue<String>(perClientLimit: 2)
        for index in 1...5 { queue.enqueue("a\(index)", for: "A", now: 0) }
        #expect(queue.next()?.job == "a1")
        #expect(queue.next()?.job == "a2")
        #expect(queue.next() == nil, "A holds two workers already")
        queue.enqueue("b1", for: "B", now: 0)
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
        for index in 1...5 { queue.enqueue("a\(index)", for: "A", now: 0) }
        #expect(queue.runnableCount == 2, "A may run two at once")
        queue.enqueue("b1", for: "B", now: 0)
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
        threads.run(for: "warm-up", .running { warmedUp.withLock { $0 = true } })
        try await waitUntil("the warm-up lookup ran") { warmedUp.withLock { $0 } }
        try await waitUntil("the warm-up thread is idle and alone") { threads.threadCount == 1 }

        // A's lookups hang, as names a DNS server never answers do, until released.
        let release = Mutex(false)
        let runningOfA = Mutex(0)
        for _ in 0..<16 {
            threads.run(for: "A", .running {
                runningOfA.withLock { $0 += 1 }
                while !release.withLock({ $0 }) { usleep(1_000) }
            })
        }
        defer { release.withLock { $0 = true } }
        try await waitUntil("two of A's lookups run (its cap)") { runningOfA.withLock { $0 } == 2 }

        let ranB = Mutex(false)
        threads.run(for: "B", .running { ranB.withLock { $0 = true } })
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
            threads.run(for: client, .running { done.withLock { $0 += 1 } })
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while done.withLock({ $0 }) < 2 || threads.threadCount > 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(done.withLock { $0 } == 2)
        #expect(threads.threadCount == 0, "threads leave after 200 ms without work")
    }

    // MARK: Under volume (issue 40)

    @Test func aClientsCappedJobsBeyondItsQueuedLimitAreRefusedAndOthersStillQueue() {
        var queue = FairQueue<String>(perClientLimit: 2, queuedLimit: 3)
        for index in 1...3 { #expect(queue.enqueue("a\(index)", for: "A", capped: true, now: 0) != nil) }
        #expect(queue.enqueue("a4", for: "A", capped: true, now: 0) == nil, "a fourth waiting lookup of A is refused")
        #expect(queue.enqueue("m1", for: "A", capped: false, now: 0) != nil, "a monitor's lookup is bounded by the monitor caps, not refused")
        #expect(queue.enqueue("b1", for: "B", capped: true, now: 0) != nil, "B has its own allowance")
        #expect(queue.queuedCount(of: "A") == 4)
        _ = queue.next()  // a1 runs: waiting, A has three again
        #expect(queue.enqueue("a5", for: "A", capped: true, now: 0) == nil, "running lookups leave the queue, but A still has 3 capped ones waiting")
        _ = queue.next()  // b1
        _ = queue.next()  // a2
        #expect(queue.enqueue("a5", for: "A", capped: true, now: 0) != nil, "a place in the queue is free again")
    }

    @Test func waitingJobsExpireOldestFirstAtTheirDeadlineAndLeaveNothingBehind() {
        var queue = FairQueue<String>(perClientLimit: 1, waitLimit: 100)
        queue.enqueue("a1", for: "A", now: 0)
        queue.enqueue("b1", for: "B", now: 10)
        queue.enqueue("a2", for: "A", now: 20)
        #expect(queue.nextDeadline == 100)
        #expect(queue.expire(now: 99).isEmpty)
        #expect(queue.expire(now: 110) == ["a1", "b1"], "both waited 100")
        #expect(queue.nextDeadline == 120)
        #expect(queue.next()?.job == "a2", "A's turn is still there for its remaining job")
        queue.finished("A")
        #expect(queue.isIdle)
        #expect(queue.next() == nil)
    }

    @Test func aCallersWaitingJobsGoWithItAndTheRestKeepTheirOrder() {
        var queue = FairQueue<String>(perClientLimit: 8)
        queue.enqueue("a1", for: "uid 1", caller: ":1.1", now: 0)
        queue.enqueue("a2", for: "uid 1", caller: ":1.2", now: 0)
        queue.enqueue("a3", for: "uid 1", caller: ":1.1", now: 0)
        queue.enqueue("b1", for: "uid 2", caller: ":1.3", now: 0)
        #expect(queue.removeAll(of: ":1.1") == ["a1", "a3"])
        #expect(queue.removeAll(of: ":1.1").isEmpty, "nothing is left of that caller")
        #expect(queue.pendingCount == 2)
        #expect(queue.runnableCount == 2)
        var order: [String] = []
        while let (_, _, job) = queue.next() { order.append(job) }
        #expect(order == ["a2", "b1"])
    }

    @Test func aJobRemovedFromTheMiddleLeavesItsNeighboursLinked() {
        var queue = FairQueue<String>(perClientLimit: 8)
        let tickets = (1...5).map { queue.enqueue("a\($0)", for: "A", now: UInt64($0))! }
        #expect(queue.remove(tickets[2]) == "a3")
        #expect(queue.remove(tickets[2]) == nil, "removed once")
        #expect(queue.remove(tickets[0]) == "a1")
        #expect(queue.remove(tickets[4]) == "a5")
        var order: [String] = []
        while let (_, _, job) = queue.next() { order.append(job) }
        #expect(order == ["a2", "a4"])
    }

    /// The cost of each operation does not grow with the queue: 100,000 waiting jobs of one client
    /// are served, 100,000 more expire and 100,000 more go with their caller. With the old queue's
    /// linear dequeue (`removeFirst` of one client's array) the first part alone moved 5·10⁹
    /// elements; the time limit only catches that, it measures nothing.
    @Test(.timeLimit(.minutes(1))) func aHundredThousandWaitingJobsCostEachTheSame() {
        let count = 100_000
        var queue = FairQueue<Int>(perClientLimit: 2, waitLimit: 1_000)
        for index in 0..<count { queue.enqueue(index, for: "A", now: 0) }
        queue.enqueue(-1, for: "B", now: 0)
        #expect(queue.next()?.job == 0)
        #expect(queue.next()?.job == -1, "B's one job is next, not behind A's 100,000")
        var served = 1
        while let (_, client, _) = queue.next() {
            served += 1
            queue.finished(client)
        }
        #expect(served == count)
        queue.finished("A")
        queue.finished("B")
        #expect(queue.isIdle)

        for index in 0..<count { queue.enqueue(index, for: "A", caller: ":1.\(index % 7)", now: UInt64(index)) }
        #expect(queue.expire(now: UInt64(count / 2) + 1_000).count == count / 2 + 1)
        for caller in 0..<7 { _ = queue.removeAll(of: ":1.\(caller)") }
        #expect(queue.isIdle && queue.pendingCount == 0 && queue.runnableCount == 0)
    }

    @Test func aLookupThatWaitsTooLongIsDroppedAtItsDeadlineEvenWhileEveryThreadIsBusy() async throws {
        let threads = ResolverThreads(maximum: 1, perClientLimit: 1, waitLimit: .milliseconds(200),
                                      runLimit: .seconds(60), idleLifetime: .seconds(30))
        let release = Mutex(false)
        let dropped = Mutex<[ResolverThreads.DropReason]>([])
        threads.run(for: "A", .running { while !release.withLock({ $0 }) { usleep(1_000) } })
        defer { release.withLock { $0 = true } }
        let ran = Mutex(false)
        threads.run(for: "A", ResolverThreads.Job(run: { ran.withLock { $0 = true } },
                                                  dropped: { reason in dropped.withLock { $0.append(reason) } },
                                                  timedOut: {}))
        // Its thread is held: only the keeper can drop it, and no answer ever frees the thread.
        try await waitUntil("the waiting lookup was dropped") { !dropped.withLock { $0 }.isEmpty }
        #expect(dropped.withLock { $0 } == [.expired])
        #expect(threads.queuedCount == 0, "it left the queue when it expired, not when a thread got to it")
        release.withLock { $0 = true }
        try await Task.sleep(for: .milliseconds(100))
        #expect(!ran.withLock { $0 }, "a dropped lookup never runs")
    }

    @Test func aRunningLookupIsToldWhenItRunsOutOfTime() async throws {
        let threads = ResolverThreads(maximum: 1, perClientLimit: 1, runLimit: .milliseconds(100), idleLifetime: .seconds(30))
        let release = Mutex(false)
        let late = Mutex(false)
        threads.run(for: "A", ResolverThreads.Job(run: { while !release.withLock({ $0 }) { usleep(1_000) } },
                                                  dropped: { _ in }, timedOut: { late.withLock { $0 = true } }))
        defer { release.withLock { $0 = true } }
        try await waitUntil("the lookup was told it ran out of time while it still runs") { late.withLock { $0 } }
    }

    @Test func aCallerThatLeavesTakesItsWaitingLookupsOnly() async throws {
        let threads = ResolverThreads(maximum: 1, perClientLimit: 1, idleLifetime: .seconds(30))
        let release = Mutex(false)
        let holding = Mutex(false)
        threads.run(for: "uid 1", .running {
            holding.withLock { $0 = true }
            while !release.withLock({ $0 }) { usleep(1_000) }
        })
        defer { release.withLock { $0 = true } }
        try await waitUntil("the thread is held") { holding.withLock { $0 } }
        let dropped = Mutex<[String]>([])
        for (caller, name) in [(":1.1", "x"), (":1.2", "y"), (":1.1", "z")] {
            threads.run(for: "uid 1", caller: caller, capped: true,
                        ResolverThreads.Job(run: {}, dropped: { _ in dropped.withLock { $0.append(name) } }, timedOut: {}))
        }
        threads.callerLeft(":1.1")
        #expect(dropped.withLock { $0 } == ["x", "z"])
        #expect(threads.queuedCount == 1)
    }

    @Test func theResolverRefusesACheckBeyondTheCapAndAnswersListedNamesAnyway() async throws {
        // One thread, held by a name that does not answer until the test says so.
        let release = Mutex(false)
        let resolver = Resolver(maximumThreads: 1, perClientLimit: 1, queuedLimit: 1, timeout: .seconds(60),
                                hostsFile: { HostsFile(text: "192.0.2.9 listed.test\n") },
                                lookUp: { _ in
                                    while !release.withLock({ $0 }) { usleep(1_000) }
                                    return .noAddress
                                })
        defer { release.withLock { $0 = true } }
        let first = Task { try await resolver.resolve("slow.test", for: "uid 1", caller: ":1.1") }
        try await waitUntil("the first lookup holds the thread") { resolver.threadCount >= 1 && resolver.queuedCount == 0 }
        let second = Task { try await resolver.resolve("waits.test", for: "uid 1", caller: ":1.1") }
        try await waitUntil("the second lookup waits") { resolver.queuedCount == 1 }
        await #expect(throws: Resolver.Refusal.queueFull(1), "uid 1 already has one name waiting") {
            try await resolver.resolve("third.test", for: "uid 1", caller: ":1.2")
        }
        #expect(try await resolver.resolve("listed.test", for: "uid 1", caller: ":1.2") == .addresses([IPAddress(strict: "192.0.2.9")!]),
                "a listed name takes no place in the queue")
        resolver.callerLeft(":1.1")
        await #expect(throws: Resolver.Refusal.callerLeft, "the waiting lookup went with its caller") { try await second.value }
        release.withLock { $0 = true }
        #expect(try await first.value == .noAddress, "the running lookup still answers")
    }

    @Test func theMemoryIsGivenBackOnceAFloodHasDrained() async throws {
        let released = Mutex(0)
        let threads = ResolverThreads(maximum: 2, perClientLimit: 2, queuedLimit: 16, idleLifetime: .seconds(30),
                                      releaseMemory: { released.withLock { $0 += 1 } })
        for _ in 0..<ResolverThreads.floodSize {
            threads.run(for: "A", caller: ":1.1", capped: true, .running {})
        }
        try await waitUntil("the keeper gave the memory back once nothing waits") { released.withLock { $0 } == 1 }
        threads.run(for: "A", .running {})
        try await Task.sleep(for: .milliseconds(200))
        #expect(released.withLock { $0 } == 1, "one lookup is no flood")
    }
}

extension ResolverThreads.Job {
    /// A job that only runs.
    static func running(_ body: @escaping @Sendable () -> Void) -> Self {
        Self(run: body, dropped: { _ in }, timedOut: {})
    }
}
