import Foundation
import Glibc
import ReachdTestSupport

/// A container as Docker or Podman makes one, without Docker: a network namespace whose only
/// link is `eth7`, a veth to a peer namespace that holds its gateway, and no D-Bus at all (no
/// `DBUS_*` variables, no runtime directory, and in a mount namespace of its own an empty
/// `/run/dbus`, so not even the machine's system bus socket). Programs started with `run` see
/// only that; `/sys` is the namespace's own (`ip netns exec` mounts it).
final class Container: Sendable {
    let name: String
    let peer: String
    let interface = "eth7"
    let address: String
    let gateway: String

    private init(name: String, peer: String, subnet: Int) {
        self.name = name
        self.peer = peer
        address = "10.77.\(subnet).2"
        gateway = "10.77.\(subnet).1"
    }

    static func make() async throws -> Container {
        guard geteuid() == 0 else { throw TestFailure("a container's network namespace needs root: run the tests as root (sudo -E Scripts/test)") }
        let id = String(UUID().uuidString.prefix(6)).lowercased()
        let container = Container(name: "rc-\(id)", peer: "rc-\(id)-p", subnet: Int.random(in: 1...250))
        do {
            for step in [
                ["netns", "add", container.name], ["netns", "add", container.peer],
                ["-n", container.name, "link", "set", "lo", "up"],
                ["-n", container.name, "link", "add", container.interface, "type", "veth", "peer", "name", "p7", "netns", container.peer],
                ["-n", container.peer, "address", "add", "\(container.gateway)/24", "dev", "p7"],
                ["-n", container.peer, "link", "set", "p7", "up"],
                ["-n", container.name, "address", "add", "\(container.address)/24", "dev", container.interface],
                ["-n", container.name, "link", "set", container.interface, "up"],
                ["-n", container.name, "route", "add", "default", "via", container.gateway],
            ] {
                try await runToolChecked("/usr/sbin/ip", step)
            }
        } catch {
            container.stop()
            throw error
        }
        return container
    }

    /// `executable arguments…` inside the container, with `environment` and nothing of the machine's buses.
    func process(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> ChildProcess {
        try processWithoutBuses(inNamespace: name, executable, arguments, environment: environment)
    }

    /// Runs `executable arguments…` inside the container to its end.
    func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
             timeout: Duration = .seconds(60)) async throws -> ToolResult {
        let child = try process(executable, arguments, environment: environment)
        defer { child.removeOutput() }
        let status = try await child.exit(timeout: timeout)
        return ToolResult(status: status, standardOutput: child.standardOutput, standardError: child.standardError)
    }

    func deleteDefaultRoute() async throws {
        try await runToolChecked("/usr/sbin/ip", ["-n", name, "route", "del", "default"])
    }

    func restoreDefaultRoute() async throws {
        try await runToolChecked("/usr/sbin/ip", ["-n", name, "route", "add", "default", "via", gateway])
    }

    /// A connectivity check's answer (`NetworkManager is online`) served from the gateway, in the
    /// peer namespace, on port 8080; returns the server (the caller stops it) and the check's URI.
    func serveConnectivityCheck() async throws -> (server: ChildProcess, uri: String) {
        let script = """
            import http.server, sys
            class Handler(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    body = b"NetworkManager is online\\n"
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                def log_message(self, *arguments):
                    pass
            server = http.server.HTTPServer((sys.argv[1], 8080), Handler)
            print("ready", flush=True)
            server.serve_forever()
            """
        let server = try ChildProcess("/usr/sbin/ip", ["netns", "exec", peer, "/usr/bin/python3", "-c", script, gateway])
        try await eventually(timeout: .seconds(20), "the check's server listens: \(server.standardError)") {
            server.standardOutput.contains("ready")
        }
        return (server, "http://\(gateway):8080/check")
    }

    func stop() { deleteNetworkNamespaces([name, peer]) }
}

/// Runs `body` with a fresh container, always taken down afterwards.
func withContainer<T>(_ body: (Container) async throws -> T) async throws -> T {
    let container = try await Container.make()
    defer { container.stop() }
    return try await body(container)
}
