import Foundation
import Glibc
import ReachdTestSupport
import Testing

extension ReachdGioModuleTests {
    /// Which reachd a GLib app's monitor follows (contract 4, §2.1): the session bus's, else the
    /// system bus's (running or activatable), never one whose `NetworkNamespace` is not the app's;
    /// with none, the module's init fails and GLib's own monitor answers. The module says which
    /// at debug level (`G_MESSAGES_DEBUG=reachd`), and why none did in its GError.
    @Suite("Which reachd answers: the session bus's, the system bus's, never another namespace's", .serialized, .timeLimit(.minutes(3)))
    struct WhichReachdTests {
        static let full = MonitorValues(true, .full)
        static let local = MonitorValues(false, .local)
        /// The module's debug messages, which GLib writes to standard output (between the
        /// consumer's JSON lines, which `events` picks out).
        static let debug = ["G_MESSAGES_DEBUG": "reachd"]
        static let noSessionBus = "no session bus (DBUS_SESSION_BUS_ADDRESS is unset and there is no $XDG_RUNTIME_DIR/bus)"
        static let serviceUnknown = "The name io.reachd.Reachability1 was not provided by any .service files"

        /// The inode of a process's network namespace, as reachd publishes its own.
        static func networkNamespace(of pid: pid_t) throws -> UInt64 {
            var status = stat()
            guard stat("/proc/\(pid)/ns/net", &status) == 0 else {
                throw TestFailure("stat /proc/\(pid)/ns/net: \(String(cString: strerror(errno)))")
            }
            return UInt64(status.st_ino)
        }

        /// Debian's deny-by-default system bus with reachd's staged policy and python-dbusmock's
        /// NetworkManager, but no reachd on it: the package's policy in place, its system instance
        /// neither running nor startable.
        static func withSystemBusWithoutReachd<T>(_ body: (PrivateBus) async throws -> T) async throws -> T {
            try await withDebianSystemBus { bus, _ in try await body(bus) }
        }

        // MARK: Issue 27: system services and other users, with no session bus

        @Test("no session bus, as user nobody: the system instance answers, can_reach asks it, and the app hears its change",
              arguments: ModuleBuild.allCases)
        func systemInstanceAnswersWithoutSessionBus(build: ModuleBuild) async throws {
            try await withSystemInstance(arguments: ["--no-override"]) { bus, networkManager, _ in
                let modules = try await build.directory()
                let app = try GLibApp(["watch"], session: nil, system: bus.address, modules: modules, build: build,
                                      environment: Self.debug, user: SystemInstance.nobody)
                defer { app.stop() }
                let ready = try await app.first("ready")
                #expect(ready.type == "ReachdNetworkMonitor", "\(app.transcript)")
                #expect(ready.values == Self.full, "\(app.transcript)")
                #expect(app.child.standardOutput.contains("reachd on the system bus answers; \(Self.noSessionBus)"), "\(app.transcript)")

                // can_reach goes to the system instance too: rv0's subnet is reachable there.
                let asking = try GLibApp(["reach", "192.0.2.9", "443"], session: nil, system: bus.address, modules: modules,
                                         build: build, user: SystemInstance.nobody)
                defer { asking.stop() }
                let answers = try await asking.finish().filter { $0.event == "reach" }
                #expect(answers.count == 1 && answers.first?.sync == ConsumerAnswer(ok: true, error: nil), "\(asking.transcript)")
                #expect(answers.first?.asynchronous == answers.first?.sync, "\(asking.transcript)")

                try await networkManager.setState(50)
                try await app.waitForChanges(1)
                #expect(app.seen == [.notify("network-available", Self.local), .notify("connectivity", Self.local),
                                     .changed(false, Self.local)], "\(app.transcript)")
            }
        }

        @Test("no session bus and no reachd on the system bus, as user nobody: GLib's own monitor, the module adding less than 100 ms to get_default()",
              arguments: ModuleBuild.allCases)
        func noReachdOnEitherBus(build: ModuleBuild) async throws {
            try await Self.withSystemBusWithoutReachd { bus in
                let modules = try await build.directory()
                let app = { (modules: String?, environment: [String: String]) in
                    try GLibApp(["default"], session: nil, system: bus.address, modules: modules, build: build,
                                environment: environment, user: SystemInstance.nobody)
                }
                let told = try app(modules, Self.debug)
                defer { told.stop() }
                #expect(try await told.first("default").type == "GNetworkMonitorNM", "\(told.transcript)")
                #expect(told.child.standardOutput.contains("""
                    \(Self.noSessionBus); reachd (io.reachd.Reachability1 on the system bus) did not answer: \
                    \(Self.serviceUnknown); GLib's own network monitor answers instead
                    """), "\(told.transcript)")

                let answers = try await FallbackTests.answers({ try app(modules, [:]) }, against: { try app(nil, [:]) })
                #expect(answers.module.allSatisfy { $0.type == "GNetworkMonitorNM" }, "\(answers.module.map(\.type))")
                #expect(answers.own.allSatisfy { $0.type == "GNetworkMonitorNM" }, "\(answers.own.map(\.type))")
                let share = FallbackTests.share(answers)
                #expect(share.ms < FallbackTests.bound, "\(share.record)")
            }
        }

        @Test("a session bus without reachd: the system instance answers; one whose reachd hangs in its start: the system instance after the session bus's 2 s, not the bus's 25 s")
        func systemInstanceAfterTheSessionBusFails() async throws {
            try await withSystemInstance(arguments: ["--no-override"]) { bus, _, _ in
                let modules = try await ModuleBuild.plain.directory()
                let withoutReachd = try PrivateBus(.session)
                defer { withoutReachd.stop() }
                let quick = try GLibApp(["default"], session: withoutReachd.address, system: bus.address, modules: modules,
                                        environment: Self.debug)
                defer { quick.stop() }
                #expect(try await quick.first("default").type == "ReachdNetworkMonitor", "\(quick.transcript)")
                #expect(quick.child.standardOutput.contains("""
                    reachd on the system bus answers; reachd (io.reachd.Reachability1 on the session bus) did not answer: \
                    \(Self.serviceUnknown)
                    """), "\(quick.transcript)")

                // Started by the bus, never taking the name: the bus would wait 25 s for it. The
                // sleep ends by itself soon after the test.
                let hanging = try PrivateBus(.session, activationFiles: ["io.reachd.Reachability1.service": """
                    [D-BUS Service]
                    Name=io.reachd.Reachability1
                    Exec=/bin/sleep 5
                    """])
                defer { hanging.stop() }
                let slow = try GLibApp(["default"], session: hanging.address, system: bus.address, modules: modules,
                                       environment: Self.debug)
                defer { slow.stop() }
                let answer = try await slow.first("default", timeout: .seconds(30))
                #expect(answer.type == "ReachdNetworkMonitor", "\(slow.transcript)")
                #expect(slow.child.standardOutput.contains("""
                    reachd on the system bus answers; reachd (io.reachd.Reachability1 on the session bus) did not answer: \
                    Timeout was reached
                    """), "\(slow.transcript)")
                // The session bus's wait is a timeout (wall clock); the rest is one round trip,
                // counted without the time the app waited for a CPU.
                let wall = try #require(answer.wall_ms), took = try #require(answer.ms)
                #expect(wall >= 2000, "get_default() took \(wall) ms")
                #expect(took < 3000, "get_default() took \(took) ms of its own (\(wall) ms wall-clock)")
            }
        }

        // MARK: Issue 28: an app in another network namespace that reaches the session bus

        @Test("an app in another network namespace that reaches the session bus by its socket: reachd is skipped for its NetworkNamespace and GLib's own monitor answers; in reachd's namespace, reachd's")
        func anotherNetworkNamespaceGetsGLibsOwn() async throws {
            let build = ModuleBuild.plain
            try await withLab(setUp: wifiConnected) { lab in
                let reachd = try #require(lab.reachd)
                let elsewhere = try await lab.app(["watch"], build: build, environment: Self.debug,
                                                  launcher: ["/usr/bin/unshare", "--net", "--"])
                defer { elsewhere.stop() }
                let ready = try await elsewhere.first("ready")
                #expect(ready.type == "GNetworkMonitorNM", "\(elsewhere.transcript)")
                let theirs = try Self.networkNamespace(of: reachd.pid), mine = try Self.networkNamespace(of: elsewhere.child.pid)
                #expect(theirs != mine)
                #expect(elsewhere.child.standardOutput.contains("""
                    reachd on the session bus answers for another network namespace (net:[\(theirs)], this app: net:[\(mine)]); \
                    reachd (io.reachd.Reachability1 on the system bus) did not answer: \(Self.serviceUnknown); \
                    GLib's own network monitor answers instead
                    """), "\(elsewhere.transcript)")

                let here = try await lab.app(["default"], build: build, environment: Self.debug)
                defer { here.stop() }
                #expect(try await here.first("default").type == "ReachdNetworkMonitor", "\(here.transcript)")
                #expect(here.child.standardOutput.contains("reachd on the session bus answers\n"), "\(here.transcript)")
            }
        }

        @Test("reachd's name taken over by a reachd in another network namespace: the app keeps the last values, hears none of its changes, and follows the next reachd of its own")
        func anotherNamespacesReachdTakingTheNameIsIgnored() async throws {
            try await withLab(setUp: wifiConnected) { lab in
                let first = try #require(lab.reachd)
                let app = try await lab.app(["watch"], environment: Self.debug)
                defer { app.stop() }
                #expect(try await app.first("ready").values == Self.full, "\(app.transcript)")

                first.stop()
                let foreign = try await lab.startReachd(arguments: ["--no-override"], network: .privateWithDefaultRoute)
                try await eventually(timeout: .seconds(15), "the app read the new owner:\n\(app.transcript)") {
                    app.child.standardOutput.contains("reachd on the session bus now answers for another network namespace")
                }
                try await lab.networkManager.setState(50)
                try await eventually(timeout: .seconds(15), "the other namespace's reachd publishes the change") {
                    try await lab.reachdProperty("Level") == "s \"link\""
                }
                try await Task.sleep(for: .milliseconds(300))
                #expect(app.seen.isEmpty, "nothing from another namespace's reachd: \(app.transcript)")

                foreign.stop()
                try await lab.startReachd(arguments: ["--no-override"])
                try await app.waitForChanges(1)
                #expect(app.seen == [.notify("network-available", Self.local), .notify("connectivity", Self.local),
                                     .changed(false, Self.local)], "\(app.transcript)")
            }
        }
    }
}
