import Foundation
import Glibc
import ReachdTestSupport
import Testing

extension ReachdGioModuleTests {
    /// `g_network_monitor_can_reach` and `can_reach_async` answered by reachd's CheckHost
    /// (contract 3 §1.2): the same answer both ways, GIO's error codes, cancellation honoured,
    /// and the async form never holding up the app's main loop.
    @Suite("can_reach through reachd's CheckHost", .serialized, .timeLimit(.minutes(3)))
    struct CanReachTests {
        /// The reach command's answers, by host.
        static func answers(_ events: [ConsumerEvent]) -> [String: (sync: ConsumerAnswer, async: ConsumerAnswer)] {
            var answers: [String: (sync: ConsumerAnswer, async: ConsumerAnswer)] = [:]
            for event in events where event.event == "reach" {
                if let host = event.host, let sync = event.sync, let async = event.asynchronous { answers[host] = (sync, async) }
            }
            return answers
        }

        @Test("sync and async agree: literals, names, GInetSocketAddress and GNetworkService reachable; reachd's refusals are INVALID_ARGUMENT with its sentence",
              arguments: ModuleBuild.allCases)
        func syncAndAsyncAgree(build: ModuleBuild) async throws {
            try await withLab(setUp: wifiConnected) { lab in
                let reachable = ["127.0.0.1", "::1", "localhost", "192.0.2.9", "inet:127.0.0.1", "inet:::1", "service:localhost"]
                // 127.1 is a name GLib's own monitors would resolve (to 127.0.0.1); reachd refuses it.
                let refused = ["a..b": "'a..b' has an empty label", "127.1": "ambiguous legacy IPv4"]
                let app = try await lab.app(["reach"] + (reachable + refused.keys).flatMap { [$0, "443"] }, build: build)
                defer { app.stop() }
                let answers = Self.answers(try await app.finish())
                #expect(answers.count == reachable.count + refused.count, "\(app.transcript)")
                for host in reachable {
                    #expect(answers[host]?.sync == ConsumerAnswer(ok: true, error: nil), "\(host): \(app.transcript)")
                    #expect(answers[host]?.async == answers[host]?.sync, "\(host)")
                }
                for (host, sentence) in refused {
                    let sync = try #require(answers[host]?.sync.error, "\(host): \(app.transcript)")
                    #expect(sync.domain == GIOError.domain && sync.code == GIOError.invalidArgument, "\(host): \(sync)")
                    #expect(sync.message.contains(sentence), "\(host): \(sync)")
                    #expect(answers[host]?.async == answers[host]?.sync, "\(host)")
                }
            }
        }

        /// CheckHost answers status 0 and no flags both for a name that did not resolve and for an
        /// address no route leads to: the module cannot tell which for a name, and says both; an
        /// address literal has nothing to resolve.
        @Test("without a route: HOST_UNREACHABLE naming the address, or for a name that it did not resolve or no route leads to it; NETWORK_UNREACHABLE once reachd has no path",
              arguments: ModuleBuild.allCases)
        func unreachableHosts(build: ModuleBuild) async throws {
            try await withLab(.runningPrivately(arguments: ["--no-override"]), setUp: wifiConnected) { lab in
                // reachd's namespace keeps only rv0's subnet: 198.51.100.7 has no route there, and
                // no DNS server can be reached to resolve a name.
                let reachd = try #require(lab.reachd)
                try await runToolChecked("/usr/bin/nsenter", ["--net=/proc/\(reachd.pid)/ns/net", "ip", "route", "del", "default"])
                let host = "198.51.100.7", name = "nowhere.reachd-gio.test"

                let connected = try await lab.app("reach", host, "443", name, "443", build: build)
                defer { connected.stop() }
                let answers = Self.answers(try await connected.finish())
                let whileConnected = try #require(answers[host], "\(connected.transcript)")
                #expect(whileConnected.sync.error?.code == GIOError.hostUnreachable, "\(connected.transcript)")
                #expect(whileConnected.sync.error?.message == "Host unreachable: no route to 198.51.100.7", "\(connected.transcript)")
                #expect(whileConnected.async == whileConnected.sync)
                let unresolved = try #require(answers[name], "\(connected.transcript)")
                #expect(unresolved.sync.error?.code == GIOError.hostUnreachable, "\(connected.transcript)")
                #expect(unresolved.sync.error?.message
                        == "Host unreachable: nowhere.reachd-gio.test is not reachable (it did not resolve, or no route leads to it)",
                        "\(connected.transcript)")
                #expect(unresolved.async == unresolved.sync)

                try await lab.networkManager.setState(20)
                try await eventually("reachd publishes no path") {
                    ["s \"none\"", "s \"link\""].contains(try await lab.reachdProperty("Level"))
                }
                let disconnected = try await lab.app("reach", host, "443", build: build)
                defer { disconnected.stop() }
                let whileDisconnected = try #require(Self.answers(try await disconnected.finish())[host], "\(disconnected.transcript)")
                #expect(whileDisconnected.sync.error?.code == GIOError.networkUnreachable, "\(disconnected.transcript)")
                #expect(whileDisconnected.async == whileDisconnected.sync)
            }
        }

        /// reachd's answer for an address behind the default route while NetworkManager reports a
        /// captive portal: Reachable, ConnectionRequired and InterventionRequired, status 0.
        @Test("an address behind a captive portal: HOST_UNREACHABLE saying a portal stands in the way; one on the local subnet still reachable")
        func behindACaptivePortal() async throws {
            try await withLab(setUp: wifiConnected) { lab in
                try await lab.networkManager.setManager("Connectivity", "u", "2")
                try await eventually("reachd publishes the portal") { try await lab.reachdProperty("Connectivity") == "s \"portal\"" }
                let outside = "198.51.100.7", local = "192.0.2.9"
                let app = try await lab.app("reach", outside, "443", local, "443")
                defer { app.stop() }
                let answers = Self.answers(try await app.finish())
                let behind = try #require(answers[outside], "\(app.transcript)")
                #expect(behind.sync.error?.code == GIOError.hostUnreachable, "\(app.transcript)")
                #expect(behind.sync.error?.message
                        == "Host unreachable: a captive portal stands in the way to 198.51.100.7 (sign in to the network first)",
                        "\(app.transcript)")
                #expect(behind.async == behind.sync)
                #expect(answers[local]?.sync == ConsumerAnswer(ok: true, error: nil), "no gateway, no portal: \(app.transcript)")
            }
        }

        @Test("reachd gone and not startable: in the grace, answered as GLib's base monitor would, from the path last known, both ways (before: FAILED)")
        func reachdGone() async throws {
            try await withLab(setUp: wifiConnected) { lab in
                let app = try await lab.app("reach-on-usr1", "127.0.0.1", "80")
                defer { app.stop() }
                try await app.first("ready")
                let reachd = try #require(lab.reachd)
                reachd.process.stop(SIGKILL)
                try await eventually("reachd's name has no owner") { try await lab.session.owner(of: ReachdProcess.busName) == nil }
                kill(app.child.pid, SIGUSR1)
                let answer = try #require(Self.answers(try await app.finish())["127.0.0.1"], "\(app.transcript)")
                // Never worse than GLib's own monitor (contract 7, §4): reachd's last word had a path.
                #expect(answer.sync == ConsumerAnswer(ok: true, error: nil), "\(app.transcript)")
                #expect(answer.async == answer.sync)
            }
        }

        @Test("a cancelled GCancellable: CANCELLED, sync and async", arguments: ModuleBuild.allCases)
        func cancelled(build: ModuleBuild) async throws {
            try await withLab(setUp: wifiConnected) { lab in
                let app = try await lab.app("cancel", "127.0.0.1", "80", build: build)
                defer { app.stop() }
                let events = try await app.finish()
                for form in ["async", "sync"] {
                    let answer = try #require(events.first { $0.event == form }, "\(app.transcript)")
                    #expect(answer.ok == false && answer.error?.code == GIOError.cancelled, "\(form): \(app.transcript)")
                }
            }
        }

        /// 32 names reachd resolves slowly (its namespace's DNS server is never reached) hold every
        /// place the app has on the bus; calls queued behind them must not wait for a place to be
        /// cancelled. "As soon as" is an order, which no load changes: all of them are answered
        /// before the first slow one (reachd's resolver timeout, 5 s) frees a place.
        @Test("calls waiting behind 32 slow ones answer CANCELLED as soon as their GCancellable is cancelled",
              arguments: ModuleBuild.allCases)
        func cancelledWhileQueued(build: ModuleBuild) async throws {
            try await withLab(setUp: wifiConnected) { lab in
                let app = try await lab.app("cancel-queued", "slow.reachd-gio.test", "32", "127.0.0.1", "20", build: build)
                defer { app.stop() }
                let result = try #require(try await app.finish().first { $0.event == "cancel-queued" }, "\(app.transcript)")
                #expect(result.outcomes == ["cancelled": 20], "\(app.transcript)")
                #expect(result.answered == 0, "answered \(result.ms ?? -1) ms after the cancel, once a slow one had left its place: \(app.transcript)")
            }
        }

        /// The calls the module keeps on the app's bus connection (CHECK_HOST_IN_FLIGHT in
        /// reachd-can-reach.c): the rest wait in its queue.
        static let callsOnTheBus = 32

        /// What "never holds the main loop up" means, in measures a loaded machine does not
        /// change. A wall-clock bound did not hold: beside a CPU hog the time between two turns,
        /// less the app's wait for a CPU, was 10.09, 19.14 and 12.77 ms for the ASan build, while
        /// the module did nothing wrong. So the app counts what each turn of its loop carried:
        /// never more answers than the module's calls on the bus, however many are in flight.
        /// And two names reachd answers only after its resolver's timeout (the first asked, and
        /// one started from the queue half-way) make a wait for reachd seconds long: no turn, and
        /// no can_reach_async, may last a quarter of that. The times per turn are in the message.
        @Test("1,000 can_reach_async in flight from one app: all answered, no main-loop turn carries more than the 32 calls on the bus, and none waits for reachd",
              arguments: ModuleBuild.allCases)
        func thousandInFlight(build: ModuleBuild) async throws {
            try await withLab(setUp: wifiConnected) { lab in
                let slow = "slow.reachd-gio.test"
                let app = try await lab.app("flood", "1000", slow, "127.0.0.1", "::1", "localhost", "192.0.2.9", build: build)
                defer { app.stop() }
                let result = try #require(try await app.finish(timeout: .seconds(90)).first { $0.event == "flood" }, "\(app.transcript)")
                #expect(result.type == "ReachdNetworkMonitor")
                #expect(result.answered == 1000 && result.succeeded == 998, "\(app.transcript)")
                let errors = result.errors ?? [:]
                #expect(errors.count == 2 && errors.keys.allSatisfy { $0.contains(slow) && $0.contains("did not resolve") }, "\(errors)")

                let waited = try #require(result.slow_ms?.min(), "\(app.transcript)")
                try #require(waited >= 1000, """
                    reachd answered the slow names after \(result.slow_ms ?? []) ms: to tell a wait for reachd from work, \
                    the lab needs a DNS server reachd cannot reach (its namespace's only route leads nowhere)
                    """)
                let record = "\(result.turns ?? 0) turns, the longest \(result.longest_turn_ms ?? -1) ms, the most CPU in one \(result.most_turn_cpu_ms ?? -1) ms; the longest call \(result.longest_ask_ms ?? -1) ms; the slow names waited \(result.slow_ms ?? []) ms"
                #expect((result.most_per_turn ?? .max) <= Self.callsOnTheBus, "answers in one turn: \(result.most_per_turn ?? -1); \(record)")
                #expect((result.longest_turn_ms ?? .infinity) < waited / 4, "a turn waited for reachd: \(record)")
                #expect((result.longest_ask_ms ?? .infinity) < waited / 4, "a can_reach_async waited for reachd: \(record)")
            }
        }
    }
}
