import Foundation
import Glibc
import ReachdTestSupport

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

