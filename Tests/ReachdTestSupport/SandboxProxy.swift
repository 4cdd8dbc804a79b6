import Foundation
import Glibc

/// What a Flatpak app's bus looks like, without Flatpak: xdg-dbus-proxy run in a bwrap sandbox
/// whose `/.flatpak-info` is a file the test writes, with a filter as Flatpak sets it. reachd
/// (or xdg-desktop-portal) sees the proxy's PID as the caller, as it would with Flatpak, and
/// finds the fake file in the proxy's root.
///
/// bwrap's new root is an empty tmpfs: /usr is bound in (with the merged-/usr links), and the
/// private bus's folder so the proxy can reach the bus. Clients connect to `address` from outside.
public final class SandboxProxy: Sendable {
    public let address: String
    public let directory: URL
    private let process: ChildProcess

    /// Flatpak's filter for `--talk-name=io.reachd.Reachability1`.
    public static let talkToReachd = ["--talk=io.reachd.Reachability1"]
    /// Flatpak's filter for every app: calls to the portals, and their broadcasts.
    public static let portalsOnly = ["--call=org.freedesktop.portal.*=*",
                                     "--broadcast=org.freedesktop.portal.*=@/org/freedesktop/portal/*"]

    /// `shared`: the `[Context] shared` list of the fake `.flatpak-info`, e.g. `"network;ipc;"`.
    /// `filter`: xdg-dbus-proxy's rules after `--filter`.
    public init(session: PrivateBus, shared: String, appID: String = "org.example.SandboxedApp",
                filter: [String] = talkToReachd) async throws {
        for tool in ["/usr/bin/bwrap", "/usr/bin/xdg-dbus-proxy"] where access(tool, X_OK) != 0 {
            throw TestFailure("\(tool) is missing: apt-get install bubblewrap xdg-dbus-proxy (Scripts/test installs them)")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-sandbox-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let info = directory.appendingPathComponent("flatpak-info")
        // Flatpak writes the talk-names an app was given as its session bus policy.
        let policy = filter.compactMap { $0.hasPrefix("--talk=") ? "\($0.dropFirst("--talk=".count))=talk" : nil }
        try """
            [Application]
            name=\(appID)
            runtime=runtime/org.freedesktop.Platform/x86_64/23.08

            [Context]
            shared=\(shared)
            sockets=wayland;
            """.appending(policy.isEmpty ? "\n" : "\n\n[Session Bus Policy]\n" + policy.joined(separator: "\n") + "\n")
            .write(to: info, atomically: true, encoding: .utf8)
        let socket = directory.appendingPathComponent("bus").path
        process = try ChildProcess("/usr/bin/bwrap", [
            "--die-with-parent", "--unshare-pid",
            "--ro-bind", "/usr", "/usr",
            "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
            "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin",
            "--proc", "/proc", "--dev", "/dev",
            "--bind", session.directory.path, session.directory.path,
            "--bind", directory.path, directory.path,
            "--ro-bind", info.path, "/.flatpak-info",
            "--", "/usr/bin/xdg-dbus-proxy", session.address, socket, "--filter",
        ] + filter)
        address = "unix:path=\(socket)"
        let process = self.process
        try await eventually(timeout: .seconds(10), "xdg-dbus-proxy listens on \(socket); its stderr:\n\(process.standardError)") {
            if let status = process.poll() { throw TestFailure("bwrap/xdg-dbus-proxy exited with \(status): \(process.standardError)") }
            // Accepting, not only there: the file exists from bind(), before listen(), and a client
            // connecting between the two is refused (seen once in a whole run).
            return Self.accepts(socket)
        }
    }

    /// Whether a connection to the Unix socket at `path` is accepted.
    static func accepts(_ path: String) -> Bool {
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }

    /// `dbus-send` through the proxy, as a libdbus app in the sandbox would call.
    public func dbusSend(_ arguments: [String]) async throws -> ToolResult {
        try await runTool("dbus-send", ["--bus=\(address)", "--print-reply", "--reply-timeout=10000"] + arguments)
    }

    public func stop() {
        process.stop(SIGTERM)
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }
}
