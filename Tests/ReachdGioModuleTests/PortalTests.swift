import Foundation
import ReachdTestSupport
import Testing

extension ReachdGioModuleTests {
    /// Every Flatpak app asks xdg-desktop-portal, which answers from its own process's
    /// GNetworkMonitor: with the module installed, that is reachd's answer. The real portal
    /// (Debian's package) runs on the lab's session bus with GIO_EXTRA_MODULES at the module and
    /// no system bus, so GLib's own NetworkManager monitor cannot be what answers.
    ///
    /// The module's plain build only: with AddressSanitizer's runtime preloaded, the portal itself
    /// deadlocks in glibc's bindtextdomain at its start, before it loads any module.
    @Suite("xdg-desktop-portal's NetworkMonitor over the module", .serialized, .timeLimit(.minutes(3)))
    struct PortalTests {
        static let full = MonitorValues(true, .full)

        /// One NetworkManager change (one reachd change) and GetStatus after it.
        static let steps: [(label: String, change: @Sendable (NetworkManagerMock) async throws -> Void, status: MonitorValues)] = [
            ("a captive portal", { try await $0.setManager("Connectivity", "u", "2") }, MonitorValues(true, .portal)),
            ("connectivity LIMITED", { try await $0.setManager("Connectivity", "u", "3") }, MonitorValues(true, .limited)),
            ("CONNECTED_LOCAL", { try await $0.setState(50) }, MonitorValues(false, .local)),
            ("CONNECTED_GLOBAL, still LIMITED", { try await $0.setState(70) }, MonitorValues(true, .limited)),
            ("connectivity FULL", { try await $0.setManager("Connectivity", "u", "4") }, full),
            ("a gsm connection: metered", {
                try await $0.setManager("PrimaryConnection", "o", NetworkManagerMock.manager + "/ActiveConnection/gsm0")
            }, MonitorValues(true, .full, metered: true)),
        ]

        static func getStatus(address: String) async throws -> MonitorValues? {
            let reply = try await runTool("gdbus", ["call", "--address", address, "--dest", Portal.name, "--object-path", Portal.path,
                                                    "--method", "\(Portal.interface).GetStatus"])
            return reply.succeeded ? Portal.status(reply.standardOutput) : nil
        }

        static func changedSignals(_ monitor: BackgroundTool) -> Int {
            monitor.lines.filter { $0.contains("\(Portal.interface).changed") }.count
        }

        /// A Flatpak app's bus that shares the network, filtered as Flatpak filters every app's bus:
        /// the portals only.
        static func sandboxedApp(_ lab: Lab) async throws -> SandboxProxy {
            try await SandboxProxy(session: lab.session, shared: "network;ipc;", appID: "org.example.GioApp",
                                   filter: SandboxProxy.portalsOnly)
        }

        @Test("GetStatus follows the table after each change, and `changed` arrives once for each, for a host app and a sandboxed one")
        func statusAndChangedSignal() async throws {
            try await withLab(setUp: wifiConnected) { lab in
                let portal = try await Portal(lab: lab, build: .plain)
                defer { portal.stop() }
                let sandbox = try await Self.sandboxedApp(lab)
                defer { sandbox.stop() }
                #expect(try await Self.getStatus(address: lab.session.address) == Self.full)
                #expect(try await Self.getStatus(address: sandbox.address) == Self.full)

                let host = try BackgroundTool("gdbus", ["monitor", "--address", lab.session.address, "--dest", Portal.name])
                defer { host.stop() }
                let sandboxed = try BackgroundTool("gdbus", ["monitor", "--address", sandbox.address, "--dest", Portal.name])
                defer { sandboxed.stop() }
                try await host.waitForOutput(containing: "is owned by")
                try await sandboxed.waitForOutput(containing: "is owned by")
                // gdbus monitor subscribes, after it prints that, to the owner's unique name; the
                // proxy passes the sandboxed one's rule on as it is.
                let owner = try #require(try await lab.session.owner(of: Portal.name))
                let rule = "\"type=\\'signal\\',sender=\\'\(owner)\\'\""
                var rules = ""
                try await eventually("both monitors' match rules are on the bus: \(rules)") {
                    rules = try await lab.session.busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                         "org.freedesktop.DBus.Debug.Stats", "GetAllMatchRules").standardOutput
                    return rules.components(separatedBy: rule).count - 1 >= 2
                }

                for (number, step) in Self.steps.enumerated() {
                    try await step.change(lab.networkManager)
                    try await eventually(timeout: .seconds(15), "after '\(step.label)' the portal says \(step.status)") {
                        try await Self.getStatus(address: lab.session.address) == step.status
                    }
                    #expect(try await Self.getStatus(address: sandbox.address) == step.status, "sandboxed, after '\(step.label)'")
                    try await eventually(timeout: .seconds(15), "after '\(step.label)' \(number + 1) `changed` reached both:\n\(host.output)\n\(sandboxed.output)") {
                        Self.changedSignals(host) >= number + 1 && Self.changedSignals(sandboxed) >= number + 1
                    }
                }
                try await Task.sleep(for: .milliseconds(300))
                #expect(Self.changedSignals(host) == Self.steps.count, "one `changed` per change: \(host.output)")
                #expect(Self.changedSignals(sandboxed) == Self.steps.count, "one `changed` per change: \(sandboxed.output)")
            }
        }

        @Test("CanReach is answered through reachd's CheckHost, for a host app and a sandboxed one")
        func canReachThroughReachd() async throws {
            try await withLab(setUp: wifiConnected) { lab in
                let portal = try await Portal(lab: lab, build: .plain)
                defer { portal.stop() }
                let sandbox = try await Self.sandboxedApp(lab)
                defer { sandbox.stop() }
                let calls = try BackgroundTool("dbus-monitor", ["--address", lab.session.address,
                                                                "type='method_call',interface='io.reachd.Reachability1',member='CheckHost'"])
                defer { calls.stop() }
                try await calls.waitForOutput(containing: "NameLost")
                let portalOwner = try #require(try await lab.session.owner(of: Portal.name))

                for (address, host) in [(lab.session.address, "192.0.2.77"), (sandbox.address, "192.0.2.78")] {
                    let reply = try await runToolChecked("gdbus", ["call", "--address", address, "--dest", Portal.name,
                                                                   "--object-path", Portal.path,
                                                                   "--method", "\(Portal.interface).CanReach", host, "443"])
                    #expect(reply.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "(true,)", "\(host): \(reply.transcript)")
                    try await calls.waitForOutput(containing: "string \"\(host)\"")
                }
                let checks = calls.lines.filter { $0.contains("member=CheckHost") }
                #expect(checks.count == 2, "\(calls.output)")
                #expect(checks.allSatisfy { $0.contains("sender=\(portalOwner) ") }, "asked by the portal: \(calls.output)")
            }
        }
    }
}
