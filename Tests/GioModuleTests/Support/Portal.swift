import Foundation
import Glibc
import TestSupport

/// The real xdg-desktop-portal (Debian's package) on a lab's session bus, with GIO_EXTRA_MODULES
/// at the module: its NetworkMonitor answers from the portal process's GNetworkMonitor, as it
/// answers every Flatpak app. It gets no system bus, so GLib's own NetworkManager monitor cannot
/// be what answers.
final class Portal: Sendable {
    static let executable = "/usr/libexec/xdg-desktop-portal"
    static let name = "org.freedesktop.portal.Desktop"
    static let path = "/org/freedesktop/portal/desktop"
    static let interface = "org.freedesktop.portal.NetworkMonitor"

    let process: ChildProcess
    private let home: String

    init(lab: Lab, build: ModuleBuild) async throws {
        guard access(Self.executable, X_OK) == 0 else {
            throw TestFailure("\(Self.executable) is missing: apt-get install xdg-desktop-portal (Scripts/test installs it)")
        }
        home = "\(lab.scratch)/portal"
        try FileManager.default.createDirectory(atPath: "\(home)/runtime", withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        // A clean environment, as a session starts it; -r replaces nothing here (a fresh bus).
        var environment = [
            "PATH=/usr/bin:/bin", "HOME=\(home)", "XDG_RUNTIME_DIR=\(home)/runtime",
            "DBUS_SESSION_BUS_ADDRESS=\(lab.session.address)", "DBUS_SYSTEM_BUS_ADDRESS=\(absentSystemBusAddress())",
            "GIO_USE_VFS=local", "GIO_EXTRA_MODULES=\(try await build.directory())",
        ]
        environment += build.environment.map { "\($0.key)=\($0.value)" }
        process = try ChildProcess("/usr/bin/env", ["-i"] + environment + [Self.executable, "-r"])
        let process = self.process
        try await eventually(timeout: .seconds(20), "xdg-desktop-portal owns \(Self.name); its stderr:\n\(process.standardError)") {
            if let status = process.poll() { throw TestFailure("xdg-desktop-portal exited with \(status): \(process.standardError)") }
            return try await lab.session.owner(of: Self.name) != nil
        }
    }

    /// NetworkMonitor.GetStatus as `gdbus call` prints it, read back as the three values.
    static func status(_ reply: String) -> MonitorValues? {
        // ({'available': <true>, 'metered': <false>, 'connectivity': <uint32 4>},)
        func field(_ key: String) -> String? {
            guard let range = reply.range(of: "'\(key)': <") else { return nil }
            let rest = reply[range.upperBound...]
            return rest.prefix { $0 != ">" }.replacingOccurrences(of: "uint32 ", with: "")
        }
        guard let available = field("available"), let metered = field("metered"),
              let connectivity = field("connectivity").flatMap(Int.init).flatMap(Connectivity.init(rawValue:)) else { return nil }
        return MonitorValues(available == "true", connectivity, metered: metered == "true")
    }

    func stop() {
        process.stop(SIGTERM)
    }

    deinit { stop() }
}

/// A Flatpak app's bus, without Flatpak, as the sandbox tests make one: xdg-dbus-proxy in a bwrap
/// sandbox whose `/.flatpak-info` shares the network, filtered as Flatpak filters every app's
/// bus for the portals (calls to org.freedesktop.portal.*, their broadcasts).
final class SandboxedBus: Sendable {
    let address: String
    let directory: String
    private let process: ChildProcess

    init(session: PrivateBus) async throws {
        for tool in ["/usr/bin/bwrap", "/usr/bin/xdg-dbus-proxy"] where access(tool, X_OK) != 0 {
            throw TestFailure("\(tool) is missing: apt-get install bubblewrap xdg-dbus-proxy (Scripts/test installs them)")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-gio-sandbox-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let info = "\(directory)/flatpak-info"
        try """
            [Application]
            name=org.example.GioApp
            runtime=runtime/org.freedesktop.Platform/x86_64/23.08

            [Context]
            shared=network;ipc;
            sockets=wayland;
            """.write(toFile: info, atomically: true, encoding: .utf8)
        let socket = "\(directory)/bus"
        process = try ChildProcess("/usr/bin/bwrap", [
            "--die-with-parent", "--unshare-pid",
            "--ro-bind", "/usr", "/usr",
            "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
            "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin",
            "--proc", "/proc", "--dev", "/dev",
            "--bind", session.directory.path, session.directory.path,
            "--bind", directory, directory,
            "--ro-bind", info, "/.flatpak-info",
            "--", "/usr/bin/xdg-dbus-proxy", session.address, socket,
            "--filter", "--call=org.freedesktop.portal.*=*", "--broadcast=org.freedesktop.portal.*=@/org/freedesktop/portal/*",
        ])
        address = "unix:path=\(socket)"
        let process = self.process
        try await eventually(timeout: .seconds(10), "xdg-dbus-proxy listens on \(socket); its stderr:\n\(process.standardError)") {
            if let status = process.poll() { throw TestFailure("bwrap/xdg-dbus-proxy exited with \(status): \(process.standardError)") }
            return access(socket, F_OK) == 0
        }
    }

    func stop() {
        process.stop(SIGTERM)
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit { stop() }
}
