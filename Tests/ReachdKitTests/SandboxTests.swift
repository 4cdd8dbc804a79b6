import Foundation
import Glibc
import ReachdKit
import ReachdTestSupport
import Testing

/// Sandboxed apps (docs/app-developers/sandboxed-apps.md; contract §6.3), tried as Flatpak runs them: the
/// app's bus is an xdg-dbus-proxy in a bwrap sandbox with the app's `/.flatpak-info`, filtered
/// to `--talk=io.reachd.Reachability1`. An app without `--share=network` gets NotAllowed from
/// every method and property read of both interfaces, as the portal refuses it; an app with it
/// is served as a host app is, signals, monitors and activation included.
///
/// Calls go through libdbus clients (dbus-send, reachctl, the client library): sd-bus's busctl
/// cannot talk through Debian 12's xdg-dbus-proxy.
@Suite("Sandboxed apps", .timeLimit(.minutes(2)))
struct SandboxTests {
    static let notAllowed = "io.reachd.Reachability1.Error.NotAllowed"
    static let sentence = "this application has no network access (Flatpak --share=network missing)"
    static let main = ["--dest=io.reachd.Reachability1", "/io/reachd/Reachability1"]

    @Test("without --share=network every method and property read answers NotAllowed; Introspect and Peer stay open")
    func appWithoutNetworkIsRefusedEverywhere() async throws {
        try await withWorld { world in
            // A host app's monitor, to try the Monitor interface on.
            let holder = try world.backgroundReachctl("host", "127.0.0.1", "--watch")
            defer { holder.stop() }
            try await holder.waitForOutput(containing: "127.0.0.1")
            let proxy = try await SandboxProxy(session: world.session, shared: "ipc;")
            defer { proxy.stop() }

            let calls: [[String]] = [
                Self.main + ["io.reachd.Reachability1.GetStatus"],
                Self.main + ["io.reachd.Reachability1.CheckHost", "string:127.0.0.1"],
                Self.main + ["io.reachd.Reachability1.ManagerForDomain", "string:example.org"],
                Self.main + ["io.reachd.Reachability1.ManagerForAddress", "string:127.0.0.1"],
                Self.main + ["org.freedesktop.DBus.Properties.Get", "string:io.reachd.Reachability1", "string:Status"],
                Self.main + ["org.freedesktop.DBus.Properties.GetAll", "string:io.reachd.Reachability1"],
                ["--dest=io.reachd.Reachability1", "/io/reachd/Reachability1/Monitors/1",
                 "org.freedesktop.DBus.Properties.GetAll", "string:io.reachd.Reachability1.Monitor"],
                ["--dest=io.reachd.Reachability1", "/io/reachd/Reachability1/Monitors/1",
                 "io.reachd.Reachability1.Monitor.Release"],
            ]
            for call in calls {
                let result = try await proxy.dbusSend(call)
                #expect(!result.succeeded && result.standardError.contains("\(Self.notAllowed): \(Self.sentence)"),
                        "\(call.joined(separator: " ")): \(result.transcript)")
            }
            let introspected = try await proxy.dbusSend(Self.main + ["org.freedesktop.DBus.Introspectable.Introspect"])
            #expect(introspected.succeeded && introspected.standardOutput.contains("GetStatus"), "\(introspected.transcript)")
            let pinged = try await proxy.dbusSend(Self.main + ["org.freedesktop.DBus.Peer.Ping"])
            #expect(pinged.succeeded, "\(pinged.transcript)")
            // The host app is served as before, and kept its monitor.
            #expect(try await world.serviceProperty("MonitorCount") == "u 1")
            #expect(!holder.hasExited)
        }
    }

    @Test("without --share=network the client library and reachctl report Unknown and say why, and ignore broadcasts")
    func clientReportsUnknownWithTheReason() async throws {
        try await withWorld { world in
            let proxy = try await SandboxProxy(session: world.session, shared: "ipc;")
            defer { proxy.stop() }
            let manager = NetworkReachabilityManager(.defaultRoute, sessionBusAddress: proxy.address)
            let seen = Recorder<NetworkReachabilityStatus>()
            manager.setReachabilityStatusChangeHandler(queue: DispatchQueue(label: "sandbox")) { seen.append($0) }
            manager.startMonitoring()
            defer { manager.stopMonitoring() }
            try await seen.waitUntil([.unknown])
            #expect(manager.lastError?.name == ReachabilityError.notAllowed)
            #expect(manager.lastError?.message == Self.sentence)
            #expect(manager.lastError?.isServiceUnavailable == false)
            // The service's broadcasts still reach the proxied connection; the client does not take them.
            try await world.networkManager.setState(20)
            try await world.waitForServiceStatus(.notReachable)
            try await Task.sleep(for: .milliseconds(300))
            #expect(seen.values == [.unknown])
            #expect(manager.networkReachabilityStatus == .unknown)

            let status = try await runTool(Executables.reachctl, ["status"], environment: ["DBUS_SESSION_BUS_ADDRESS": proxy.address])
            #expect(status.status == 4, "\(status.transcript)")
            #expect(status.standardError.contains(Self.sentence), "\(status.transcript)")
        }
    }

    @Test("with --share=network the app is answered, and PropertiesChanged and ReachabilityChanged reach it through the proxy")
    func appWithNetworkIsServedWithSignals() async throws {
        try await withWorld { world in
            let proxy = try await SandboxProxy(session: world.session, shared: "network;ipc;")
            defer { proxy.stop() }
            let status = try await proxy.dbusSend(Self.main + ["io.reachd.Reachability1.GetStatus"])
            #expect(status.succeeded && status.standardOutput.contains("int32 2"), "\(status.transcript)")
            let check = try await proxy.dbusSend(Self.main + ["io.reachd.Reachability1.CheckHost", "string:127.0.0.1"])
            #expect(check.succeeded, "\(check.transcript)")

            // A libdbus client (the library) and GDBus both hear the broadcasts through the proxy.
            let monitor = try BackgroundTool("gdbus", ["monitor", "--address", proxy.address, "--dest", "io.reachd.Reachability1"])
            defer { monitor.stop() }
            try await monitor.waitForOutput(containing: "io.reachd.Reachability1")
            let manager = NetworkReachabilityManager(.defaultRoute, sessionBusAddress: proxy.address)
            let seen = Recorder<NetworkReachabilityStatus>()
            manager.setReachabilityStatusChangeHandler(queue: DispatchQueue(label: "sandbox")) { seen.append($0) }
            manager.startMonitoring()
            defer { manager.stopMonitoring() }
            try await seen.waitUntil([.reachableViaWiFi])
            #expect(manager.lastError == nil)

            try await world.networkManager.setState(20)
            try await seen.waitUntil([.reachableViaWiFi, .notReachable])
            try await monitor.waitForOutput(containing: "org.freedesktop.DBus.Properties.PropertiesChanged")
            try await monitor.waitForOutput(containing: "io.reachd.Reachability1.ReachabilityChanged (0,")
        }
    }

    @Test("a monitor made through the proxy is released when the sandboxed app exits")
    func monitorIsReleasedWhenTheProxiedClientExits() async throws {
        try await withWorld { world in
            let proxy = try await SandboxProxy(session: world.session, shared: "network;")
            defer { proxy.stop() }
            let app = try BackgroundTool(Executables.reachctl, ["host", "127.0.0.1", "--watch"],
                                         environment: ["DBUS_SESSION_BUS_ADDRESS": proxy.address])
            defer { app.stop() }
            try await app.waitForOutput(containing: "127.0.0.1: Reachable")
            #expect(try await world.serviceProperty("MonitorCount") == "u 1")
            // Killed, so it releases nothing itself: reachd sees its proxied connection leave.
            app.stop(SIGKILL)
            try await eventually(timeout: .seconds(10), "MonitorCount is back to 0") {
                try await world.serviceProperty("MonitorCount") == "u 0"
            }
            #expect(world.service?.exitStatus == nil)
        }
    }

    @Test("a call through the proxy starts reachd by D-Bus activation")
    func activationThroughTheProxy() async throws {
        try await withWorld(.activatable) { world in
            let proxy = try await SandboxProxy(session: world.session, shared: "network;")
            defer { proxy.stop() }
            #expect(try await world.session.owner(of: ReachdProcess.busName) == nil)
            let status = try await proxy.dbusSend(Self.main + ["io.reachd.Reachability1.GetStatus"])
            #expect(status.succeeded && status.standardOutput.contains("int32 2"), "\(status.transcript)")
            let activated = try #require(try await world.session.processID(of: ReachdProcess.busName))
            // The activated reachd is the bus's child, not ours: stop it before the bus goes.
            kill(activated, SIGTERM)
        }
    }
}
