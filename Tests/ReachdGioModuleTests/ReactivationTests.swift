import Foundation
import Glibc
import ReachdTestSupport
import Testing

extension ReachdGioModuleTests {
    /// reachd leaving the bus under a GLib app (a crash, an update): the app keeps the last values
    /// and hears nothing through the grace, the module starts reachd again (at once, then after
    /// 250 ms doubling to 30 s, as the Swift client does), GLib's own monitor answers after the
    /// grace (HandoverTests), and on reachd's return the app hears only what differs.
    @Suite("reachd killed while a GLib app watches", .serialized, .timeLimit(.minutes(2)))
    struct ReactivationTests {
        static let full = MonitorValues(true, .full)
        static let local = MonitorValues(false, .local)

        /// Nanoseconds since the epoch, the clock `date +%s%N` in the activation wrapper reads.
        static func now() -> UInt64 {
            var time = timespec()
            clock_gettime(CLOCK_REALTIME, &time)
            return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
        }

        @Test("values kept through the grace, started again with backoff, GLib's networkmanager monitor after the grace, only the difference signalled on return, the next change arrives",
              arguments: ModuleBuild.allCases)
        func reachdKilledAndStartedAgain(build: ModuleBuild) async throws {
            try await withLab(.activatable, setUp: wifiConnected) { lab in
                // The app's monitor starts reachd (D-Bus activation).
                let app = try await lab.app("watch", build: build)
                defer { app.stop() }
                let ready = try await app.first("ready")
                #expect(ready.type == "ReachdNetworkMonitor")
                #expect(ready.values == Self.full)
                #expect(lab.activations.count == 1)
                let first = try #require(try await lab.reachdPID())

                // Gone, and not startable for a while; NetworkManager changes meanwhile.
                lab.refuseActivation(true)
                let killed = Self.now()
                let killedMonotonic = monotonicSeconds()
                kill(first, SIGKILL)
                try await lab.networkManager.setState(50)
                try await eventually(timeout: .seconds(15), "four starts asked for since the kill: \(lab.activations)") {
                    lab.activations.count >= 5
                }

                let starts = lab.activations.dropFirst()
                let milliseconds = { (a: UInt64, b: UInt64) in Double(b &- a) / 1e6 }
                // At once (an upper bound with room for a loaded machine), then each wait at
                // least the backoff: the timer starts after the failed start, so never sooner.
                #expect(milliseconds(killed, starts[starts.startIndex]) < 2000, "first start after the kill: \(milliseconds(killed, starts[starts.startIndex])) ms")
                for (index, backoff) in [250.0, 500, 1000].enumerated() {
                    let gap = milliseconds(starts[starts.startIndex + index], starts[starts.startIndex + index + 1])
                    #expect(gap >= backoff, "start \(index + 2) came \(gap) ms after the one before, less than \(backoff) ms")
                    #expect(gap < backoff * 2 + 1500, "start \(index + 2) came \(gap) ms after the one before")
                }

                // Through the grace nothing; then GLib's networkmanager monitor (on the same
                // NetworkManager, now CONNECTED_LOCAL) answers, and only what differs is signalled.
                try await app.waitForChanges(1, timeout: .seconds(20))
                let firstSeen = try #require(app.events.first { $0.seen != nil }?.at) - killedMonotonic
                #expect(firstSeen >= HandoverTests.grace - 0.01, "the app heard something \(firstSeen) s after the kill, within the grace")
                #expect(app.seen == [.notify("network-available", Self.local), .notify("connectivity", Self.local),
                                     .changed(false, Self.local)], "GLib's answer, once: \(app.transcript)")

                // Startable again: the next attempt brings it back; its answer is GLib's, so
                // nothing is signalled.
                lab.refuseActivation(false)
                try await eventually(timeout: .seconds(20), "reachd is back: \(lab.activations)") {
                    guard let pid = try await lab.reachdPID() else { return false }
                    return pid != first
                }
                try await Task.sleep(for: .milliseconds(500))
                #expect(app.seen.count == 3, "nothing more where reachd says what GLib's monitor said: \(app.transcript)")

                // And the next change arrives, from reachd, as before.
                try await lab.networkManager.setState(70)
                try await app.waitForChanges(2)
                #expect(Array(app.seen.dropFirst(3)) == [.notify("network-available", Self.full), .notify("connectivity", Self.full),
                                                         .changed(true, Self.full)], "\(app.transcript)")
            }
        }

        /// A new reachd taking the name over (`--replace`, an update) announces nothing of its
        /// first state: the module reads it, and signals what differs from the old one's.
        @Test("reachd replaced: the new one is read, and only what differs (here the path) is signalled, once",
              arguments: ModuleBuild.allCases)
        func reachdReplaced(build: ModuleBuild) async throws {
            try await withLab(setUp: wifiConnected) { lab in
                let app = try await lab.app("watch", build: build)
                defer { app.stop() }
                #expect(try await app.first("ready").values == Self.full)
                #expect(try await lab.reachdProperty("Interface") == "s \"wlan0\"")

                // Cross-checked against its namespace, the new one finds the path leaving by rv0.
                try await lab.startReachd(arguments: ["--replace"])
                try await eventually("the new reachd publishes rv0") { try await lab.reachdProperty("Interface") == "s \"rv0\"" }
                try await app.waitForChanges(1)
                try await Task.sleep(for: .milliseconds(300))
                #expect(app.seen == [.changed(true, Self.full)], "\(app.transcript)")

                try await lab.networkManager.setManager("Connectivity", "u", "3")
                try await app.waitForChanges(2)
                let limited = MonitorValues(true, .limited)
                #expect(Array(app.seen.dropFirst()) == [.notify("connectivity", limited), .changed(true, limited)], "\(app.transcript)")
            }
        }
    }
}
