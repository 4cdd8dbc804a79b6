import Foundation
import Glibc
import TestSupport

/// What a Flatpak app's bus looks like, without Flatpak: xdg-dbus-proxy run in a bwrap sandbox
/// whose `/.flatpak-info` is a file the test writes, with the filter Flatpak sets for
/// `--talk-name=io.reachd.Reachability1`. reachd sees the proxy's PID as the caller, as it
/// would with Flatpak, and finds the fake file in the proxy's root.
///
/// bwrap's new root is an empty tmpfs: /usr is bound in (with the merged-/usr links), and the
/// private bus's folder so the proxy can reach the bus. Clients connect to `address` from outside.
final class SandboxProxy: Sendable {
    let address: String
    let directory: URL
    private let process: ChildProcess

    /// `shared`: the `[Context] shared` list of the fake `.flatpak-info`, e.g. `"network;ipc;"`.
    init(session: PrivateBus, shared: String, appID: String = "org.example.SandboxedApp") async throws {
        for tool in ["/usr/bin/bwrap", "/usr/bin/xdg-dbus-proxy"] where access(tool, X_OK) != 0 {
            throw TestFailure("\(tool) is missing: apt-get install bubblewrap xdg-dbus-proxy (Scripts/test installs them)")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-sandbox-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let info = directory.appendingPathComponent("flatpak-info")
        try """
            [Application]
            name=\(appID)
            runtime=runtime/org.freedesktop.Platform/x86_64/23.08

            [Context]
            shared=\(shared)
            sockets=wayland;

            [Session Bus Policy]
            io.reachd.Reachability1=talk
            """.write(to: info, atomically: true, encoding: .utf8)
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
            "--", "/usr/bin/xdg-dbus-proxy", session.address, socket,
            "--filter", "--talk=io.reachd.Reachability1",
        ])
        address = "unix:path=\(socket)"
        let process = self.process
        try await eventually(timeout: .seconds(10), "xdg-dbus-proxy listens on \(socket); its stderr:\n\(process.standardError)") {
            if let status = process.poll() { throw TestFailure("bwrap/xdg-dbus-proxy exited with \(status): \(process.standardError)") }
            return access(socket, F_OK) == 0
        }
    }

    /// `dbus-send` through the proxy, as a libdbus app in the sandbox would call.
    func dbusSend(_ arguments: [String]) async throws -> ToolResult {
        try await runTool("dbus-send", ["--bus=\(address)", "--print-reply", "--reply-timeout=10000"] + arguments)
    }

    func stop() {
        process.stop(SIGTERM)
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }
}
