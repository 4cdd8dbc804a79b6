import Foundation
import Glibc
import ReachdTestSupport
import Testing

extension ReachdGioModuleTests {
    /// Contract 6 §3: never worse than GLib's own monitor. reachd gone and unable to return (a
    /// typo in its configuration, so every start fails), the module hands over after its grace
    /// to the monitor GLib would have chosen without it (here GLib's netlink monitor: the app has
    /// no NetworkManager), follows it, and hands back when reachd owns its name again; at each
    /// handover the app hears only what differs between the two answers.
    ///
    /// The kill switch only reachd sees: NetworkManager (the mock) says CONNECTED_LOCAL and reachd,
    /// with --no-override, believes it, while the namespace has a default route, which GLib's
    /// netlink monitor takes as available. So the app's values say whose answer it has.
    @Suite("GLib's own monitor answers while reachd is gone", .serialized, .timeLimit(.minutes(3)))
    struct HandoverTests {
        static let full = MonitorValues(true, .full)
        static let local = MonitorValues(false, .local)
        /// The module's grace (HANDOVER_GRACE_MS), from reachd's name losing its owner.
        static let grace = 2.0
        /// Upper bounds on a busy 2-core machine: the module's and GLib's own work takes
        /// milliseconds, the rest is the load.
        static let slack = 5.0

        static let handedOver = "GLib's netlink monitor (GNetworkMonitorNetlink) answers until reachd is back"
        static let handedBack = "answers again, instead of GLib's netlink monitor"

        /// The events from the `count`th notify or network-changed on (0-based), as seen.
        static func seen(_ app: GLibApp, from count: Int) -> [Seen] { Array(app.seen.dropFirst(count)) }

        /// When the app saw its `index`th notify or network-changed (CLOCK_MONOTONIC, seconds).
        static func time(_ app: GLibApp, of index: Int) -> Double? {
            app.events.filter { $0.seen != nil }.dropFirst(index).first?.at
        }

        /// How often the app printed `text`: the module's debug lines (G_MESSAGES_DEBUG=reachd),
        /// which GLib writes to standard output.
        static func occurrences(_ text: String, in app: GLibApp) -> Int {
            app.child.standardOutput.components(separatedBy: text).count - 1
        }

        @Test("reachd killed with a broken configuration: after the grace GLib's netlink monitor answers, follows the route going and coming back, and hands back to reachd when it returns; only differences are signalled",
              arguments: ModuleBuild.allCases)
        func handsOverAndBack(build: ModuleBuild) async throws {
            try await withLab(.activatableInNamespace, setUp: { mock in
                try await wifiConnected(mock)
                try await mock.setState(50)
            }) { lab in
                // No NetworkManager for the app (no system bus): GLib's choice would be netlink.
                let app = try GLibApp(["watch"], session: lab.session.address, system: nil, modules: try await build.directory(),
                                      build: build, environment: ["G_MESSAGES_DEBUG": "reachd"], launcher: lab.namespaceLauncher)
                defer { app.stop() }
                let ready = try await app.first("ready")
                #expect(ready.type == "ReachdNetworkMonitor", "\(app.transcript)")
                #expect(ready.values == Self.local, "reachd's kill switch: \(app.transcript)")
                let first = try #require(try await lab.reachdPID())

                // Gone, and every start fails (exit 64): the module tries, then hands over.
                try lab.writeConfiguration(Lab.badConfiguration)
                let killed = monotonicSeconds()
                kill(first, SIGKILL)
                try await app.waitForChanges(1, timeout: .seconds(20))
                try await Task.sleep(for: .milliseconds(300))
                #expect(app.seen == [.notify("network-available", Self.full), .notify("connectivity", Self.full),
                                     .changed(true, Self.full)], "GLib's answer, once: \(app.transcript)")
                let handover = try #require(Self.time(app, of: 0)) - killed
                #expect(handover >= Self.grace - 0.01, "handed over \(handover) s after the kill, before the grace")
                #expect(handover < Self.grace + Self.slack, "handed over \(handover) s after the kill")
                #expect(Self.occurrences(Self.handedOver, in: app) == 1, "\(app.transcript)")
                #expect(lab.activations.count >= 2, "the module tried to start reachd again: \(lab.activations)")

                // The route goes and comes back while reachd is away: the app follows GLib's monitor.
                var removed = monotonicSeconds()
                try await lab.inNamespace("ip", "route", "del", "default")
                try await app.waitForChanges(2, timeout: .seconds(15))
                try await Task.sleep(for: .milliseconds(300))
                #expect(Self.seen(app, from: 3) == [.notify("network-available", Self.local), .notify("connectivity", Self.local),
                                                    .changed(false, Self.local)], "\(app.transcript)")
                var followed = try #require(Self.time(app, of: 3)) - removed
                #expect(followed < Self.slack, "the route's removal reached the app after \(followed) s")

                removed = monotonicSeconds()
                try await lab.inNamespace("ip", "route", "add", "default", "via", "192.0.2.1")
                try await app.waitForChanges(3, timeout: .seconds(15))
                try await Task.sleep(for: .milliseconds(300))
                #expect(Self.seen(app, from: 6) == [.notify("network-available", Self.full), .notify("connectivity", Self.full),
                                                    .changed(true, Self.full)], "\(app.transcript)")
                followed = try #require(Self.time(app, of: 6)) - removed
                #expect(followed < Self.slack, "the route's return reached the app after \(followed) s")

                // Mended and started (as any client's call would): reachd's answer again, the kill switch.
                try lab.writeConfiguration(Lab.goodConfiguration)
                let started = try await lab.session.busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                                           "StartServiceByName", "su", ReachdProcess.busName, "0")
                #expect(started.succeeded, "\(started.transcript)")
                try await app.waitForChanges(4, timeout: .seconds(20))
                try await Task.sleep(for: .milliseconds(300))
                #expect(Self.seen(app, from: 9) == [.notify("network-available", Self.local), .notify("connectivity", Self.local),
                                                    .changed(false, Self.local)], "reachd's answer, once: \(app.transcript)")
                #expect(Self.occurrences(Self.handedBack, in: app) == 1, "\(app.transcript)")

                // reachd's changes reach the app as before.
                try await lab.networkManager.setState(70)
                try await app.waitForChanges(5)
                try await Task.sleep(for: .milliseconds(300))
                #expect(Self.seen(app, from: 12) == [.notify("network-available", Self.full), .notify("connectivity", Self.full),
                                                     .changed(true, Self.full)], "\(app.transcript)")

                // Gone again while both answers agree: the handover is silent.
                try lab.writeConfiguration(Lab.badConfiguration)
                let second = try #require(try await lab.reachdPID())
                kill(second, SIGKILL)
                try await eventually(timeout: .seconds(20), "handed over a second time:\n\(app.transcript)") {
                    Self.occurrences(Self.handedOver, in: app) == 2
                }
                try await Task.sleep(for: .milliseconds(500))
                #expect(app.seen.count == 15, "nothing signalled where GLib's answer is reachd's: \(app.transcript)")
            }
        }

        @Test("reachd gone for good: can_reach and can_reach_async are answered (in the grace from the path last known, then by GLib's monitor), and however often the app asks, it starts reachd no oftener than its own retries do plus once per 5 s",
              arguments: ModuleBuild.allCases)
        func canReachWhileGone(build: ModuleBuild) async throws {
            try await withLab(.activatableInNamespace, setUp: wifiConnected) { lab in
                // 40 asks (sync and async each) 250 ms apart: 80 calls over about 10 s.
                let app = try GLibApp(["reach-every", "40", "250", "inet:192.0.2.1", "80"], session: lab.session.address, system: nil,
                                      modules: try await build.directory(), build: build, environment: ["G_MESSAGES_DEBUG": "reachd"],
                                      launcher: lab.namespaceLauncher)
                defer { app.stop() }
                let ready = try await app.first("ready")
                #expect(ready.type == "ReachdNetworkMonitor", "\(app.transcript)")
                let reachd = try #require(try await lab.reachdPID())

                // Gone, and every start fails (exit 64).
                try lab.writeConfiguration(Lab.badConfiguration)
                let before = lab.activations.count
                kill(reachd, SIGKILL)
                try await eventually(timeout: .seconds(20), "reachd's name is free") { try await lab.reachdPID() == nil }
                kill(app.child.pid, SIGUSR1)
                let events = try await app.finish(timeout: .seconds(90))
                let answers = events.filter { $0.event == "reach" }
                #expect(answers.count == 40, "\(app.transcript)")
                let failed = answers.filter { $0.sync?.ok != true || $0.asynchronous?.ok != true }
                #expect(failed.isEmpty, "GLib's own monitor says 192.0.2.1 can be reached (a default route leads there): \(failed.prefix(3))")
                #expect(Self.occurrences(Self.handedOver, in: app) == 1, "\(app.transcript)")

                // The module's own retries (250 ms doubling: 5 or 6 in 10 s) and at most one start
                // per 5 s from can_reach: not one per call (before: a start for nearly every one).
                let starts = lab.activations.count - before
                #expect(starts >= 1 && starts <= 10, "\(starts) starts of reachd for 80 calls in about 10 s: \(lab.activations)")
                print("HandoverTests: \(starts) starts of reachd while an app asked can_reach 80 times in about 10 s")
            }
        }

        @Test("a PropertiesChanged sent to the app by a connection that does not own reachd's name is ignored by the module itself, a NameOwnerChanged from it moves nothing, and reachd's next change still arrives",
              arguments: ModuleBuild.allCases)
        func signalsFromOthersIgnored(build: ModuleBuild) async throws {
            try await withLab(setUp: wifiConnected) { lab in
                let app = try await lab.app("watch", "named", build: build, environment: ["G_MESSAGES_DEBUG": "reachd"])
                defer { app.stop() }
                let ready = try await app.first("ready")
                #expect(ready.values == Self.full)
                let name = try #require(ready.unique_name)
                let owner = try #require(try await lab.session.owner(of: ReachdProcess.busName))

                let spoof = try await runToolChecked(GLibApp.python, [GLibApp.spoofScript, lab.session.address, name, owner])
                let spoofer = spoof.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(spoofer.hasPrefix(":"), "\(spoof.transcript)")
                // The module's own decision, whatever this GLib filters first: both of the spoofer's
                // PropertiesChanged reached it and were ignored, the second with reachd's owner unchanged.
                let ignored = "ignored PropertiesChanged from \(spoofer), which does not own \(ReachdProcess.busName) (its owner: \(owner))"
                try await eventually("the module ignored both spoofed PropertiesChanged:\n\(app.transcript)") {
                    Self.occurrences(ignored, in: app) == 2
                }
                try await Task.sleep(for: .milliseconds(300))
                #expect(app.seen.isEmpty, "nothing believed: \(app.transcript)")

                try await lab.networkManager.setManager("Connectivity", "u", "3")
                try await app.waitForChanges(1)
                let limited = MonitorValues(true, .limited)
                #expect(app.seen == [.notify("connectivity", limited), .changed(true, limited)], "\(app.transcript)")
            }
        }
    }
}
