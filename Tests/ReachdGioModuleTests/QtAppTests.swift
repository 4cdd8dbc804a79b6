import Foundation
import Glibc
import ReachdTestSupport
import Testing

extension ReachdGioModuleTests {
    /// Which Qt apps get reachd's answer (contract 7, §4; gio-module.md, "Qt apps"): a real Qt 6
    /// `QNetworkInformation` (Debian's Qt 6.4.2, through PyQt6) whose `glib` backend reads GLib's
    /// monitor, so reachd's module. The kill switch only reachd sees (NetworkManager says
    /// CONNECTED_LOCAL, the namespace has a default route) tells whose answer Qt has.
    @Suite("Qt 6 apps: QNetworkInformation's glib backend reads reachd's module", .serialized, .timeLimit(.minutes(2)))
    struct QtAppTests {
        static func requirePyQt6() async throws {
            let probe = try await runTool("/usr/bin/python3", ["-c", "import PyQt6.QtNetwork"])
            guard probe.succeeded else {
                throw TestFailure("PyQt6 is not installed (apt install python3-pyqt6; Scripts/test installs it): \(probe.standardError)")
            }
        }

        @Test("loaded by name, the glib backend says what reachd says (Disconnected: the kill switch), where GLib's own monitor would say Online; Qt 6.4's default backend is NetworkManager's alone")
        func glibBackendFollowsReachd() async throws {
            try await Self.requirePyQt6()
            try await withLab(.activatableInNamespace, setUp: { mock in
                try await wifiConnected(mock)
                try await mock.setState(50)
            }) { lab in
                let modules = try await ModuleBuild.plain.directory()
                func ask(_ how: String, modules: String?) async throws -> ConsumerEvent {
                    let app = try GLibApp(["qt", how], session: lab.session.address, system: nil, modules: modules,
                                          environment: ["QT_QPA_PLATFORM": "offscreen"], launcher: lab.namespaceLauncher)
                    defer { app.stop() }
                    return try #require(try await app.finish().first { $0.event == "qt" }, "\(app.transcript)")
                }
                let withReachd = try await ask("glib", modules: modules)
                #expect(withReachd.ok == true && withReachd.type == "glib", "\(withReachd)")
                #expect(withReachd.property == "Disconnected", "reachd's kill switch, through GLib: \(withReachd)")
                let withoutReachd = try await ask("glib", modules: nil)
                #expect(withoutReachd.property == "Online", "GLib's netlink monitor sees the default route: \(withoutReachd)")
                // Qt 6.4: the default is NetworkManager's backend only, and there is no system bus here.
                let byDefault = try await ask("default", modules: modules)
                #expect(byDefault.ok == false, "Qt 6.4 has no fallback to glib: \(byDefault)")
                // By features, NetworkManager absent: the glib backend, so reachd's answer.
                let byFeatures = try await ask("features", modules: modules)
                #expect(byFeatures.type == "glib" && byFeatures.property == "Disconnected", "\(byFeatures)")
                print("QtAppTests: Qt backends \(withReachd.host ?? ""); glib with reachd's module: \(withReachd.property ?? "-"), "
                      + "without: \(withoutReachd.property ?? "-"); default loaded: \(byDefault.ok ?? false); by features: \(byFeatures.type ?? "-")")
            }
        }
    }
}
