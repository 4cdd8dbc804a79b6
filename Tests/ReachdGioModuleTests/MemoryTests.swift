import Foundation
import Glibc
import ReachdTestSupport
import Testing

extension ReachdGioModuleTests {
    /// The module runs inside other people's processes: a monitor made, changed and released
    /// (with a can_reach_async in flight as the app lets go) leaves no error and no leak behind.
    @Suite("Memory: valgrind memcheck and AddressSanitizer", .serialized, .timeLimit(.minutes(5)))
    struct MemoryTests {
        static let glibSuppressions = "/usr/share/glib-2.0/valgrind/glib.supp"
        static let pygobjectSuppressions = ModuleBuilds.packageRoot + "/Tests/ReachdGioModuleTests/consumers/pygobject.supp"

        /// How `build` is checked: memcheck around the plain build (its launcher and environment,
        /// writing to `log`), the ASan build's own runtime otherwise (nothing to add).
        static func checker(_ build: ModuleBuild, log: String) throws -> (launcher: [String], environment: [String: String]) {
            guard build == .plain else { return ([], [:]) }
            guard access("/usr/bin/valgrind", X_OK) == 0 else {
                throw TestFailure("valgrind is missing: apt-get install valgrind (Scripts/test installs it)")
            }
            var launcher = ["/usr/bin/valgrind", "--leak-check=full", "--errors-for-leak-kinds=definite",
                            "--show-leak-kinds=definite", "--error-exitcode=99", "--log-file=\(log)",
                            "--suppressions=\(Self.pygobjectSuppressions)"]
            if access(Self.glibSuppressions, R_OK) == 0 { launcher.append("--suppressions=\(Self.glibSuppressions)") }
            // Every allocation through malloc, where memcheck sees it.
            return (launcher, ["PYTHONMALLOC": "malloc", "G_SLICE": "always-malloc"])
        }

        @Test("create → two changes → release: memcheck finds no error and no definite leak (plain build); ASan finds nothing (ASan build)",
              arguments: ModuleBuild.allCases)
        func createChangeRelease(build: ModuleBuild) async throws {
            try await withLab(setUp: wifiConnected) { lab in
                let log = "\(lab.scratch)/valgrind.log"
                let (launcher, environment) = try Self.checker(build, log: log)
                let app = try await lab.app("lifecycle", "2", build: build, environment: environment, launcher: launcher)
                defer { app.stop() }
                try await app.first("ready", timeout: .seconds(120))
                try await lab.networkManager.setState(50)
                try await app.waitForChanges(1, timeout: .seconds(60))
                try await lab.networkManager.setState(70)
                let events = try await app.finish(timeout: .seconds(180))
                #expect(events.map(\.event) == ["ready", "changed", "changed", "finalized", "done"], "\(app.transcript)")
                if build == .plain {
                    let report = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                    #expect(report.contains("ERROR SUMMARY: 0 errors"), "\(report)")
                }
            }
        }

        @Test("handed over to GLib's netlink monitor, back to reachd, over again, and released while GLib's monitor answers: memcheck finds no error and no definite leak; ASan finds nothing",
              arguments: ModuleBuild.allCases)
        func handOverAndBack(build: ModuleBuild) async throws {
            try await withLab(.activatableInNamespace, setUp: { mock in
                try await wifiConnected(mock)
                try await mock.setState(50)
            }) { lab in
                let log = "\(lab.scratch)/valgrind.log"
                let (launcher, environment) = try Self.checker(build, log: log)
                // No NetworkManager for the app: GLib's netlink monitor takes over, and its answer
                // (a default route) differs from reachd's (CONNECTED_LOCAL believed), so each
                // handover is a change the app waits for.
                let app = try GLibApp(["lifecycle", "3"], session: lab.session.address, system: nil,
                                      modules: try await build.directory(), build: build, environment: environment,
                                      launcher: lab.namespaceLauncher + launcher)
                defer { app.stop() }
                try await app.first("ready", timeout: .seconds(120))
                // Gone for good: a broken configuration, then the kill.
                func killReachd() async throws {
                    try lab.writeConfiguration(Lab.badConfiguration)
                    kill(try #require(try await lab.reachdPID()), SIGKILL)
                }
                try await killReachd()
                try await app.waitForChanges(1, timeout: .seconds(60))
                try lab.writeConfiguration(Lab.goodConfiguration)
                _ = try await lab.session.busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                                 "StartServiceByName", "su", ReachdProcess.busName, "0")
                try await app.waitForChanges(2, timeout: .seconds(60))
                try await killReachd()
                let events = try await app.finish(timeout: .seconds(180))
                #expect(events.map(\.event) == ["ready", "changed", "changed", "changed", "finalized", "done"], "\(app.transcript)")
                if build == .plain {
                    let report = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                    #expect(report.contains("ERROR SUMMARY: 0 errors"), "\(report)")
                }
            }
        }

        @Test("init failing on both buses (the session bus's reachd in another network namespace, none on the system bus): memcheck finds no error and no definite leak; ASan finds nothing",
              arguments: ModuleBuild.allCases)
        func initFailingOnBothBuses(build: ModuleBuild) async throws {
            try await withLab(setUp: wifiConnected) { lab in
                let log = "\(lab.scratch)/valgrind.log"
                let (launcher, environment) = try Self.checker(build, log: log)
                let app = try await lab.app("default", build: build, environment: environment,
                                            launcher: ["/usr/bin/unshare", "--net", "--"] + launcher)
                defer { app.stop() }
                let events = try await app.finish(timeout: .seconds(180))
                #expect(events.first?.type == "GNetworkMonitorNM", "reachd's init failed: \(app.transcript)")
                if build == .plain {
                    let report = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                    #expect(report.contains("ERROR SUMMARY: 0 errors"), "\(report)")
                }
            }
        }
    }
}
