import Foundation
import Glibc
import ReachdTestSupport

/// Where the corpus runs: a network namespace with two wired uplinks to a peer namespace, `eth7` and
/// `eth8`, and no D-Bus at all (as AppleNamespace). It starts offline: `eth8` is up with its address
/// but no default route, `eth7` down with none. The test brings `eth7` up, takes the default route
/// away and back, and moves it to `eth8`.
final class TwoUplinks: Sendable {
    let name: String
    let peer: String
    private let subnet: Int

    private init(id: String, subnet: Int) {
        name = "rc-\(id)"
        peer = "rc-\(id)-p"
        self.subnet = subnet
    }

    private func address(_ uplink: Int, host: Int) -> String { "10.\(uplink == 7 ? 83 : 84).\(subnet).\(host)" }

    static func make() async throws -> TwoUplinks {
        guard geteuid() == 0 else { throw TestFailure("a network namespace needs root: run the tests as root (sudo -E Scripts/test)") }
        let namespace = TwoUplinks(id: String(UUID().uuidString.prefix(6)).lowercased(), subnet: Int.random(in: 1...250))
        do {
            try await runToolChecked("/usr/sbin/ip", ["netns", "add", namespace.name])
            try await runToolChecked("/usr/sbin/ip", ["netns", "add", namespace.peer])
            try await namespace.batch(namespace.name, [
                "link set lo up",
                "link add eth7 type veth peer name p7 netns \(namespace.peer)",
                "link add eth8 type veth peer name p8 netns \(namespace.peer)",
                "address add \(namespace.address(8, host: 2))/24 dev eth8",
                "link set eth8 up",
            ])
            try await namespace.batch(namespace.peer, [
                "address add \(namespace.address(7, host: 1))/24 dev p7", "link set p7 up",
                "address add \(namespace.address(8, host: 1))/24 dev p8", "link set p8 up",
            ])
        } catch {
            namespace.stop()
            throw error
        }
        return namespace
    }

    /// Runs `commands` in one `ip -batch`, a few milliseconds for all of them.
    private func batch(_ namespace: String, _ commands: [String]) async throws {
        let script = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-batch-\(UUID().uuidString)").path
        try commands.joined(separator: "\n").appending("\n").write(toFile: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: script) }
        try await runToolChecked("/usr/sbin/ip", ["-n", namespace, "-batch", script])
    }

    /// `executable arguments…` inside the namespace, with nothing of the machine's buses.
    func process(_ executable: String, _ arguments: [String] = []) throws -> ChildProcess {
        try processWithoutBuses(inNamespace: name, executable, arguments)
    }

    /// `eth7`'s link, address and default route, together.
    func bringUp() async throws {
        try await batch(name, ["address add \(address(7, host: 2))/24 dev eth7", "link set eth7 up",
                               "route add default via \(address(7, host: 1)) dev eth7"])
    }

    func deleteDefaultRoute() async throws { try await batch(name, ["route del default"]) }

    func restoreDefaultRoute() async throws { try await batch(name, ["route add default via \(address(7, host: 1)) dev eth7"]) }

    /// The default route from `eth7` to `eth8` in one change; both links stay up.
    func moveDefaultRoute() async throws { try await batch(name, ["route replace default via \(address(8, host: 1)) dev eth8"]) }

    func stop() { deleteNetworkNamespaces([name, peer]) }
}

/// Runs `body` with a fresh pair of namespaces, always taken down afterwards.
func withTwoUplinks<T>(_ body: (TwoUplinks) async throws -> T) async throws -> T {
    let namespace = try await TwoUplinks.make()
    defer { namespace.stop() }
    return try await body(namespace)
}
