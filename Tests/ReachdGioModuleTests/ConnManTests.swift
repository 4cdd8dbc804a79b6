import Foundation
import Glibc
import ReachdTestSupport
import Testing

extension ReachdGioModuleTests {
    /// A GLib app on a ConnMan device: reachd follows ConnMan (here its stand-in on the private
    /// system bus, over the namespace's real links: Scripts/harness/connman-netns --standin), and
    /// every GLib app gets ConnMan's answer through the module, which GLib's own monitors cannot
    /// give (they have no ConnMan back end). Each change reaches the app as one `network-changed`.
    @Suite("A GLib app where ConnMan manages the network", .serialized, .timeLimit(.minutes(3)))
    struct ConnManTests {
        static let harness = ModuleBuilds.packageRoot + "/Scripts/harness/connman-netns"

        /// connman-netns's namespaces (with `options`) and its env, taken down afterwards.
        static func withNamespaces(_ options: [String], _ body: (String, [String: String]) async throws -> Void) async throws {
            guard geteuid() == 0 else { throw TestFailure("this test needs root (network namespaces); run it with sudo -E Scripts/test") }
            let directory = "/tmp/rcg-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
            defer {
                if let down = try? ChildProcess(Self.harness, ["down", directory]) { down.waitBlocking(); down.removeOutput() }
                try? FileManager.default.removeItem(atPath: directory)
            }
            let up = try await runTool(Self.harness, options + ["up", directory], environment: ["CONNMAN_NETNS_TIMEOUT": "90"],
                                       timeout: .seconds(120))
            guard up.succeeded else { throw TestFailure("connman-netns \(options) up failed: \(up.transcript)") }
            let environment = try String(contentsOfFile: directory + "/env", encoding: .utf8).split(separator: "\n")
                .reduce(into: [String: String]()) { values, line in
                    let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
                    if parts.count == 2 { values[parts[0]] = parts[1] }
                }
            try await body(directory, environment)
        }

        @Test("the real connmand: online over ethernet, the carrier gone, back: availability heard once each, with ConnMan's values")
        func hearsEachRealConnManChangeOnce() async throws {
            try await Self.withNamespaces([]) { directory, environment in
                guard let systemBus = environment["SYSTEM_BUS_ADDRESS"], let namespace = environment["CLIENT_NETNS"] else {
                    throw TestFailure("connman-netns wrote no env in \(directory)")
                }
                func run(_ action: String) async throws { try await runToolChecked(Self.harness, [action, directory]) }
                try await withPrivateBus { session in
                    try await withReachd(session: session, systemBus: systemBus, network: .named(namespace),
                                         arguments: ["--override-delay-ms", "300"]) { reachd in
                        try await eventually(timeout: .seconds(20), "reachd follows ConnMan, online") {
                            let connectivity = try await runToolChecked("busctl", ["--address=\(session.address)", "get-property",
                                ReachdProcess.busName, ReachdProcess.path, ReachdProcess.interface, "Backend", "Connectivity"]).standardOutput
                            return connectivity.contains("connman") && connectivity.contains("full")
                        }
                        let app = try GLibApp(["watch"], session: session.address, system: systemBus,
                                              modules: try await ModuleBuild.plain.directory(), launcher: reachd.namespaceLauncher)
                        defer { app.stop() }
                        #expect(try await app.first("ready").values == MonitorValues(true, .full))
                        // ConnMan's word and the kernel's arrive apart (the route goes with the carrier a
                        // few milliseconds before ConnMan's service goes idle), so the app may also hear the
                        // path change (its gateway gone, or back) as its own network-changed, as it does
                        // with NetworkManager; availability itself changes once per step.
                        func availabilityNotifies() -> [Bool] {
                            app.seen.compactMap { if case .notify("network-available", let values) = $0 { values.available } else { nil } }
                        }
                        try await run("peer-down")
                        try await eventually(timeout: .seconds(30), "the app hears the carrier gone:\n\(app.transcript)") {
                            availabilityNotifies() == [false]
                        }
                        try await Task.sleep(for: .seconds(3))
                        #expect(availabilityNotifies() == [false], "\(app.transcript)")
                        #expect(app.seen.last == .changed(false, MonitorValues(false, .local)), "\(app.transcript)")
                        try await run("peer-up")
                        try await eventually(timeout: .seconds(30), "the app hears the carrier back:\n\(app.transcript)") {
                            availabilityNotifies() == [false, true]
                        }
                        try await Task.sleep(for: .seconds(3))
                        #expect(availabilityNotifies() == [false, true], "\(app.transcript)")
                        #expect(app.seen.last == .changed(true, MonitorValues(true, .full)), "\(app.transcript)")
                        let changes = app.seen.filter { if case .changed = $0 { true } else { false } }.count
                        #expect(changes <= 4, "two steps, each at most its path change and its availability: \(changes)\n\(app.transcript)")
                    }
                }
            }
        }

        @Test("ConnMan's ethernet, a cellular service (metered), OfflineMode, ethernet again: each heard once, with ConnMan's values")
        func hearsEachConnManChangeOnce() async throws {
            try await Self.withNamespaces(["--standin"]) { directory, environment in
                guard let systemBus = environment["SYSTEM_BUS_ADDRESS"], let namespace = environment["CLIENT_NETNS"],
                      let link = environment["CLIENT_IF"] else { throw TestFailure("connman-netns wrote no env in \(directory)") }
                func set(_ services: String, state: String = "online", offline: Bool = false) async throws {
                    try await runToolChecked(Self.harness, ["standin-set", directory,
                        #"{"State":"\#(state)","OfflineMode":\#(offline),"Services":[\#(services)]}"#])
                }
                let ethernet = #"{"id":"ethernet_1","Type":"ethernet","State":"online","Interface":"\#(link)"}"#
                let cellular = #"{"id":"cellular_1","Type":"cellular","State":"online","Interface":"\#(link)"}"#
                try await set(ethernet)

                try await withPrivateBus { session in
                    try await withReachd(session: session, systemBus: systemBus, network: .named(namespace)) { reachd in
                        try await eventually("reachd follows ConnMan") {
                            try await runToolChecked("busctl", ["--address=\(session.address)", "get-property", ReachdProcess.busName,
                                                                ReachdProcess.path, ReachdProcess.interface, "Backend"])
                                .standardOutput.contains("connman")
                        }
                        let app = try GLibApp(["watch"], session: session.address, system: systemBus,
                                              modules: try await ModuleBuild.plain.directory(), launcher: reachd.namespaceLauncher)
                        defer { app.stop() }
                        let ready = try await app.first("ready")
                        #expect(ready.type == "ReachdNetworkMonitor")
                        #expect(ready.values == MonitorValues(true, .full))

                        let steps: [(String, () async throws -> Void, MonitorValues)] = [
                            ("a cellular service", { try await set(cellular) }, MonitorValues(true, .full, metered: true)),
                            ("OfflineMode", { try await set("", state: "offline", offline: true) }, MonitorValues(false, .local)),
                            ("ethernet again", { try await set(ethernet) }, MonitorValues(true, .full)),
                        ]
                        var changes = 0
                        for (label, change, values) in steps {
                            try await change()
                            changes += 1
                            try await app.waitForChanges(changes)
                            // Nothing more for this change.
                            try await Task.sleep(for: .milliseconds(300))
                            let heard = app.seen.compactMap { if case .changed(_, let values) = $0 { values } else { nil } }
                            #expect(heard.count == changes, "after '\(label)' the app heard \(heard.count) network-changed, not \(changes):\n\(app.transcript)")
                            #expect(heard.last == values, "after '\(label)':\n\(app.transcript)")
                        }
                    }
                }
            }
        }
    }
}
