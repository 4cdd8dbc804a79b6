import Foundation
import Glibc
import ReachdTestSupport

/// Where an app runs in these tests: a network namespace whose only link is veth `eth7` to a peer
/// namespace holding its gateway, with no D-Bus at all (no `DBUS_*` variables, and an empty
/// `/run/dbus` in a mount namespace of its own), so the Network product answers in-process.
/// The test deletes and restores the default route.
final class AppleNamespace: Sendable {
    let name: String
    let peer: String
    let interface: String
    let gateway: String
    private let address: String

    private init(id: String, subnet: Int, interface: String) {
        self.interface = interface
        name = "rn-\(id)"
        peer = "rn-\(id)-p"
        address = "10.78.\(subnet).2"
        gateway = "10.78.\(subnet).1"
    }

    /// `interface`: the uplink's name (`wwan0` where NetworkManager's modem stand-in names its IpInterface).
    static func make(interface: String = "eth7") async throws -> AppleNamespace {
        guard geteuid() == 0 else { throw TestFailure("a network namespace needs root: run the tests as root (sudo -E Scripts/test)") }
        let namespace = AppleNamespace(id: String(UUID().uuidString.prefix(6)).lowercased(), subnet: Int.random(in: 1...250),
                                       interface: interface)
        do {
            for step in [
                ["netns", "add", namespace.name], ["netns", "add", namespace.peer],
                ["-n", namespace.name, "link", "set", "lo", "up"],
                ["-n", namespace.name, "link", "add", namespace.interface, "type", "veth", "peer", "name", "p7", "netns", namespace.peer],
                ["-n", namespace.peer, "address", "add", "\(namespace.gateway)/24", "dev", "p7"],
                ["-n", namespace.peer, "link", "set", "p7", "up"],
                ["-n", namespace.name, "address", "add", "\(namespace.address)/24", "dev", namespace.interface],
                ["-n", namespace.name, "link", "set", namespace.interface, "up"],
                ["-n", namespace.name, "route", "add", "default", "via", namespace.gateway],
            ] {
                try await runToolChecked("/usr/sbin/ip", step)
            }
        } catch {
            namespace.stop()
            throw error
        }
        return namespace
    }

    /// `executable arguments…` inside the namespace, with nothing of the machine's buses (only
    /// those `environment` names).
    func process(_ executable: String, _ arguments: [String] = [], environment: [String: String] = [:]) throws -> ChildProcess {
        try processWithoutBuses(inNamespace: name, executable, arguments, environment: environment)
    }

    func deleteDefaultRoute() async throws {
        try await runToolChecked("/usr/sbin/ip", ["-n", name, "route", "del", "default"])
    }

    func restoreDefaultRoute() async throws {
        try await runToolChecked("/usr/sbin/ip", ["-n", name, "route", "add", "default", "via", gateway])
    }

    func stop() { deleteNetworkNamespaces([name, peer]) }
}

/// Runs `body` with a fresh namespace, always taken down afterwards.
func withAppleNamespace<T>(interface: String = "eth7", _ body: (AppleNamespace) async throws -> T) async throws -> T {
    let namespace = try await AppleNamespace.make(interface: interface)
    defer { namespace.stop() }
    return try await body(namespace)
}
