import Foundation
import ReachdTestSupport
import Testing

/// Every test of the module runs real GLib consumers. Each group below runs its tests one at a
/// time, and the groups run beside each other and the rest of the suite within the runner's limit
/// (Scripts/test's width): one chain of all of them, queued behind every other test at each step,
/// was the suite's last four minutes, on an idle machine (issue 46).
@Suite("The GIO network-monitor module in GLib apps")
struct ReachdGioModuleTests {}

extension ReachdGioModuleTests {
    /// A GLib app (python3-gi's `Gio.NetworkMonitor.get_default()`, GIO_EXTRA_MODULES at the built
    /// module) sees reachd's answer mapped as contract 3 §1.2's table says, and a change as GLib's
    /// own monitors signal one: `notify::` for each property that changed, then one
    /// `network-changed`; never at start, never twice, never for a change of none of them.
    @Suite("GNetworkMonitor's properties and network-changed", .serialized, .timeLimit(.minutes(3)))
    struct MonitorPropertiesTests {
        static let full = MonitorValues(true, .full)
        static let local = MonitorValues(false, .local)

        /// One change in the lab and what the app sees after it, in order.
        struct Step: Sendable {
            let label: String
            let change: @Sendable (Lab) async throws -> Void
            let seen: [Seen]
        }

        static func manager(_ property: String, _ type: String, _ value: String) -> @Sendable (Lab) async throws -> Void {
            { try await $0.networkManager.setManager(property, type, value) }
        }
        static func state(_ state: UInt32) -> @Sendable (Lab) async throws -> Void {
            { try await $0.networkManager.setState(state) }
        }
        static let active = NetworkManagerMock.manager + "/ActiveConnection/"

        /// From Wi-Fi, CONNECTED_GLOBAL, connectivity FULL (wifiConnected).
        static let steps: [Step] = [
            Step(label: "a captive portal on the Wi-Fi", change: manager("Connectivity", "u", "2"),
                 seen: [.notify("connectivity", MonitorValues(true, .portal)), .changed(true, MonitorValues(true, .portal))]),
            Step(label: "connectivity LIMITED", change: manager("Connectivity", "u", "3"),
                 seen: [.notify("connectivity", MonitorValues(true, .limited)), .changed(true, MonitorValues(true, .limited))]),
            Step(label: "connectivity FULL", change: manager("Connectivity", "u", "4"),
                 seen: [.notify("connectivity", full), .changed(true, full)]),
            Step(label: "CONNECTED_LOCAL", change: state(50),
                 seen: [.notify("network-available", local), .notify("connectivity", local), .changed(false, local)]),
            Step(label: "CONNECTED_GLOBAL again", change: state(70),
                 seen: [.notify("network-available", full), .notify("connectivity", full), .changed(true, full)]),
            Step(label: "a gsm connection on the modem: metered", change: manager("PrimaryConnection", "o", active + "gsm0"),
                 seen: [.notify("network-metered", MonitorValues(true, .full, metered: true)),
                        .changed(true, MonitorValues(true, .full, metered: true))]),
            Step(label: "Wi-Fi again: not metered", change: manager("PrimaryConnection", "o", active + "wifi0"),
                 seen: [.notify("network-metered", full), .changed(true, full)]),
            // The three properties stay; the path (Interface) moves: apps drop their connections.
            Step(label: "the path moves from Wi-Fi to ethernet", change: manager("PrimaryConnection", "o", active + "eth0"),
                 seen: [.changed(true, full)]),
            // A host monitor made and released: reachd announces MonitorCount, twice.
            Step(label: "a reachd change of none of the three and not of the path", change: { lab in
                try await runToolChecked("busctl", ["--address=\(lab.session.address)", "call", ReachdProcess.busName,
                                                    ReachdProcess.path, ReachdProcess.interface, "ManagerForAddress", "s", "127.0.0.1"])
                try await eventually("the one-shot busctl's monitor is released") {
                    try await lab.reachdProperty("MonitorCount") == "u 0"
                }
            }, seen: []),
            // Its signals come after any the step before could have caused.
            Step(label: "connectivity LIMITED, closing the record", change: manager("Connectivity", "u", "3"),
                 seen: [.notify("connectivity", MonitorValues(true, .limited)), .changed(true, MonitorValues(true, .limited))]),
        ]

        @Test("the default monitor is reachd's; each change is its notifies then one network-changed; nothing at start",
              arguments: ModuleBuild.allCases)
        func followsEachChange(build: ModuleBuild) async throws {
            try await withLab(setUp: wifiConnected) { lab in
                let app = try await lab.app("watch", build: build)
                defer { app.stop() }
                let ready = try await app.first("ready")
                #expect(ready.type == "ReachdNetworkMonitor")
                #expect(ready.values == Self.full)

                var expected: [Seen] = []
                for step in Self.steps {
                    try await step.change(lab)
                    expected += step.seen
                    try await eventually(timeout: .seconds(15), "after '\(step.label)' the app has seen \(expected)\n\(app.transcript)") {
                        app.seen.count >= expected.count
                    }
                    #expect(Array(app.seen.prefix(expected.count)) == expected, "after '\(step.label)'")
                }
                // Nothing more arrived after the last step's signals.
                try await Task.sleep(for: .milliseconds(300))
                #expect(app.seen == expected, "\(app.transcript)")
            }
        }

        @Test("an uplink NetworkManager does not manage, while it says CONNECTED_LOCAL: the app sees reachd's override, where GLib's own monitor says not available",
              arguments: ModuleBuild.allCases)
        func unmanagedUplinkOverridesConnectedLocal(build: ModuleBuild) async throws {
            // reachd cross-checks the mock against its namespace, whose default route leaves by
            // rv0, a link the mock knows nothing of (CONNECTED_GLOBAL, no devices, at first).
            try await withLab(.running(arguments: ["--override-delay-ms", "300"])) { lab in
                let app = try await lab.app("watch", build: build)
                defer { app.stop() }
                #expect(try await app.first("ready").values == Self.full)

                try await lab.networkManager.setState(50)
                try await app.waitForChanges(2)
                // NetworkManager's word first, then reachd's override once it has held.
                #expect(app.seen == [.notify("network-available", Self.local), .notify("connectivity", Self.local),
                                     .changed(false, Self.local),
                                     .notify("network-available", Self.full), .notify("connectivity", Self.full),
                                     .changed(true, Self.full)], "\(app.transcript)")
                #expect(try await lab.reachdProperty("Source") == "s \"netlink-override\"")

                // GLib's own NetworkManager monitor, on the same NetworkManager, in the same state.
                let glib = try GLibApp(["default"], session: lab.session.address, system: lab.system.address, modules: nil,
                                       environment: ["GIO_USE_NETWORK_MONITOR": "networkmanager"])
                defer { glib.stop() }
                let own = try await glib.first("default")
                #expect(own.type == "GNetworkMonitorNM")
                #expect(own.values == Self.local)
            }
        }
    }
}
