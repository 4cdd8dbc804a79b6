import Foundation
import Glibc

/// A way onto a bus from another network namespace: an unfiltered xdg-dbus-proxy started in
/// that namespace (`ip netns exec NAME`), on a socket in a test folder.
///
/// reachd answers questions about hosts and paths only for callers in its own network namespace
/// (contract 4, §2.1), and it knows a caller by the process behind its bus connection. A test
/// process cannot move into reachd's namespace (a process's namespace is its main thread's), so
/// its clients connect through this proxy, whose process is in reachd's namespace: each client
/// connection gets a connection of its own on the bus, as xdg-dbus-proxy does for Flatpak apps,
/// and reachd sees a caller in its namespace.
public final class NamespaceProxy: Sendable {
    /// Where clients connect.
    public let address: String
    private let directory: URL
    private let process: ChildProcess

    public init(to bus: PrivateBus, inNamespace name: String) async throws {
        guard access("/usr/bin/xdg-dbus-proxy", X_OK) == 0 else {
            throw TestFailure("/usr/bin/xdg-dbus-proxy is missing: apt-get install xdg-dbus-proxy (Scripts/test installs it)")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-nsproxy-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let socket = directory.appendingPathComponent("bus").path
        process = try ChildProcess("/usr/sbin/ip", ["netns", "exec", name, "/usr/bin/xdg-dbus-proxy", bus.address, socket])
        address = "unix:path=\(socket)"
        let process = self.process
        // The socket's file appears at bind(), before listen(): ready once a connection is taken.
        try await eventually(timeout: .seconds(10), "xdg-dbus-proxy listens on \(socket) in \(name); its stderr:\n\(process.standardError)") {
            if let status = process.poll() { throw TestFailure("xdg-dbus-proxy exited with \(status): \(process.standardError)") }
            return Self.accepts(socket)
        }
    }

    /// Whether a Unix socket at `path` accepts a connection now.
    private static func accepts(_ path: String) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let fits = withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            let bytes = Array(path.utf8)
            guard bytes.count < buffer.count else { return false }
            buffer.copyBytes(from: bytes)
            return true
        }
        guard fits else { return false }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }

    public func stop() {
        process.stop(SIGTERM)
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }
}
