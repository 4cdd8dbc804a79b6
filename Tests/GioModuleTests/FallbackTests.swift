import Foundation
import TestSupport
import Testing

extension GioModuleTests {
    /// Where reachd cannot answer, the module's init fails at once and GLib picks its own
    /// monitor, as it does without the module; an app can also choose GLib's own by name.
    @Suite("GLib's own monitor when reachd cannot answer", .timeLimit(.minutes(2)))
    struct FallbackTests {
        /// Contract 3 §1.3: get_default() returns within this with the module installed. Each app
        /// counts the time less what its threads waited for a CPU (a module that waited for a
        /// timeout or a bus being started is asleep then, not waiting), and the test judges the
        /// median of five apps: a module that waited for anything would be slow every time.
        static let bound = 100.0
        static let runs = 5

        /// `default` in `runs` apps made by `make`: each app's answer.
        static func answers(_ make: () async throws -> GLibApp) async throws -> [ConsumerEvent] {
            var answers: [ConsumerEvent] = []
            for _ in 0..<runs {
                let app = try await make()
                defer { app.stop() }
                answers.append(try await app.first("default"))
                #expect(!app.child.standardError.contains("launch"), "GLib would start a bus with dbus-launch had the module asked for one: \(app.transcript)")
            }
            return answers
        }

        static func median(_ answers: [ConsumerEvent]) -> Double {
            let times = answers.map { $0.ms ?? .infinity }.sorted()
            return times[times.count / 2]
        }

        @Test("a session bus without reachd's service file: GLib's networkmanager monitor, within 100 ms",
              arguments: ModuleBuild.allCases)
        func sessionBusWithoutReachd(build: ModuleBuild) async throws {
            try await withLab(.absent) { lab in
                let answers = try await Self.answers { try await lab.app("default", build: build) }
                #expect(answers.allSatisfy { $0.type == "GNetworkMonitorNM" }, "\(answers.map(\.type))")
                #expect(Self.median(answers) < Self.bound, "get_default() took \(answers.map { $0.ms ?? -1 }) ms")
            }
        }

        @Test("no session bus at all: GLib's networkmanager monitor within 100 ms, and no bus is started for it",
              arguments: ModuleBuild.allCases)
        func noSessionBus(build: ModuleBuild) async throws {
            try await withLab(.absent) { lab in
                let modules = try await build.directory()
                let answers = try await Self.answers {
                    try GLibApp(["default"], session: nil, system: lab.system.address, modules: modules, build: build)
                }
                #expect(answers.allSatisfy { $0.type == "GNetworkMonitorNM" }, "\(answers.map(\.type))")
                #expect(Self.median(answers) < Self.bound, "get_default() took \(answers.map { $0.ms ?? -1 }) ms")
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
