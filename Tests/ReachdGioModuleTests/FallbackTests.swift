import Foundation
import ReachdTestSupport
import Testing

extension ReachdGioModuleTests {
    /// Where reachd cannot answer, the module's init fails at once and GLib picks its own
    /// monitor, as it does without the module; an app can also choose GLib's own by name.
    @Suite("GLib's own monitor when reachd cannot answer", .serialized, .timeLimit(.minutes(2)))
    struct FallbackTests {
        /// Contract 3 §1.3: with the module installed where reachd cannot answer, get_default()
        /// returns within this. What it takes is mostly GLib's own networkmanager monitor's init,
        /// round trips to NetworkManager (here python-dbusmock, another process the machine's load
        /// slows): so each run sets the module's share against apps without it, in the same lab,
        /// taken in turns. Each app counts the time less what its threads waited for a CPU, and
        /// the test judges medians of five: a module that waited for anything (its 2 s init
        /// timeout, a bus being started) would add that every time.
        static let bound = 100.0
        static let runs = 5

        /// `default` in `runs` apps made by `make` (with the module) and as many made by `own`
        /// (GLib's own monitors only), in turns: each app's answer.
        static func answers(_ make: () async throws -> GLibApp, against own: () async throws -> GLibApp) async throws
            -> (module: [ConsumerEvent], own: [ConsumerEvent]) {
            var module: [ConsumerEvent] = [], glib: [ConsumerEvent] = []
            for _ in 0..<runs {
                module.append(try await answer(try await make()))
                glib.append(try await answer(try await own()))
            }
            return (module, glib)
        }

        static func answer(_ app: GLibApp) async throws -> ConsumerEvent {
            defer { app.stop() }
            let answer = try await app.first("default")
            #expect(!app.child.standardError.contains("launch"), "GLib would start a bus with dbus-launch had the module asked for one: \(app.transcript)")
            return answer
        }

        static func median(_ answers: [ConsumerEvent]) -> Double {
            let times = answers.map { $0.ms ?? .infinity }.sorted()
            return times[times.count / 2]
        }

        /// The module's share of get_default(), and the record for a failure message.
        static func share(_ answers: (module: [ConsumerEvent], own: [ConsumerEvent])) -> (ms: Double, record: String) {
            (median(answers.module) - median(answers.own),
             "get_default() took \(answers.module.map { $0.ms ?? -1 }) ms with the module, \(answers.own.map { $0.ms ?? -1 }) ms without")
        }

        @Test("a session bus without reachd's service file: GLib's networkmanager monitor, the module adding less than 100 ms to get_default()",
              arguments: ModuleBuild.allCases)
        func sessionBusWithoutReachd(build: ModuleBuild) async throws {
            try await withLab(.absent) { lab in
                let answers = try await Self.answers({ try await lab.app("default", build: build) }, against: {
                    try GLibApp(["default"], session: lab.session.address, system: lab.system.address, modules: nil, build: build)
                })
                #expect(answers.module.allSatisfy { $0.type == "GNetworkMonitorNM" }, "\(answers.module.map(\.type))")
                #expect(answers.own.allSatisfy { $0.type == "GNetworkMonitorNM" }, "\(answers.own.map(\.type))")
                let share = Self.share(answers)
                #expect(share.ms < Self.bound, "\(share.record)")
            }
        }

        @Test("no session bus at all: GLib's networkmanager monitor, the module adding less than 100 ms to get_default(), and no bus is started for it",
              arguments: ModuleBuild.allCases)
        func noSessionBus(build: ModuleBuild) async throws {
            try await withLab(.absent) { lab in
                let modules = try await build.directory()
                let answers = try await Self.answers({
                    try GLibApp(["default"], session: nil, system: lab.system.address, modules: modules, build: build)
                }, against: {
                    try GLibApp(["default"], session: nil, system: lab.system.address, modules: nil, build: build)
                })
                #expect(answers.module.allSatisfy { $0.type == "GNetworkMonitorNM" }, "\(answers.module.map(\.type))")
                let share = Self.share(answers)
                #expect(share.ms < Self.bound, "\(share.record)")
            }
        }

        @Test("GIO_USE_NETWORK_MONITOR=networkmanager opts one app out while reachd runs; the others keep reachd's")
        func oneAppOptsOut() async throws {
            try await withLab(setUp: wifiConnected) { lab in
                let optedOut = try await lab.app("default", environment: ["GIO_USE_NETWORK_MONITOR": "networkmanager"])
                defer { optedOut.stop() }
                #expect(try await optedOut.first("default").type == "GNetworkMonitorNM")
                let other = try await lab.app("default")
                defer { other.stop() }
                #expect(try await other.first("default").type == "ReachdNetworkMonitor")
                let byName = try await lab.app("default", environment: ["GIO_USE_NETWORK_MONITOR": "reachd"])
                defer { byName.stop() }
                #expect(try await byName.first("default").type == "ReachdNetworkMonitor")
            }
        }
    }
}
