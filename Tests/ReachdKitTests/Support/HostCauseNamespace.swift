import Foundation
import Glibc
import Synchronization
import ReachdTestSupport
import Testing

/// A network namespace whose names and routes the test decides, for `reachctl host` and
/// `wait --host`: reachd and reachctl both run in it (`ip netns exec`, which binds
/// `/etc/netns/NAME/hosts` and `resolv.conf` over `/etc`'s), so they see the same resolver,
/// as they do in one user session.
///
/// - `lo` up; `rv0` 192.0.2.2/24, its veth peer `rv1` up beside it; default via 192.0.2.1, whose
///   link-layer address is pinned to one nobody has: what is sent beyond the gateway vanishes, so
///   a TCP connection to 203.0.113.5 times out, while reachd (rightly) calls it reachable.
/// - 192.0.2.99 is on the link but nobody has it: ARP gets no answer, connect says no route to host.
/// - 198.51.100.0/24 has a route of type `unreachable`: no route.
/// - `/etc/hosts`: localhost, and `noroute.test` → 198.51.100.7.
/// - `/etc/resolv.conf`: 127.0.0.1, where dnsmasq answers every other name under `.test` with
///   NXDOMAIN, and, having no upstream server, refuses all other names.
/// - Nothing listens on any port.
final class HostCauseNamespace: Sendable {
    let name: String
    private let dnsmasq: ChildProcess
    private var configuration: String { "/etc/netns/\(name)" }

    static let timedOutAddress = "203.0.113.5"
    static let silentNeighbour = "192.0.2.99"
    static let unroutedAddress = "198.51.100.7"

    private static let counter = Mutex(0)

    init() async throws {
        guard geteuid() == 0 else {
            throw TestFailure("this test makes a network namespace and needs root: run the tests as root (Scripts/test does)")
        }
        for tool in ["/usr/sbin/ip", "/usr/sbin/dnsmasq"] where access(tool, X_OK) != 0 {
            throw TestFailure("\(tool) is missing: apt-get install iproute2 dnsmasq-base (Scripts/test installs them)")
        }
        let number = Self.counter.withLock { value in
            value += 1
            return value
        }
        name = "rctl-\(getpid())-\(number)"
        try Self.writeConfiguration(in: "/etc/netns/\(name)")
        do {
            try await runToolChecked("/bin/sh", ["-c", """
                set -eu
                ip netns add "$0"
                ip -n "$0" link set lo up
                ip -n "$0" link add rv0 type veth peer name rv1
                ip -n "$0" link set rv1 up
                ip -n "$0" address add 192.0.2.2/24 dev rv0
                ip -n "$0" link set rv0 up
                ip -n "$0" route add default via 192.0.2.1
                ip -n "$0" neigh replace 192.0.2.1 lladdr 02:00:00:00:00:01 dev rv0 nud permanent
                ip -n "$0" route add unreachable 198.51.100.0/24
                """, name])
            dnsmasq = try ChildProcess("/usr/sbin/ip", [
                "netns", "exec", name, "/usr/sbin/dnsmasq", "--keep-in-foreground", "--no-resolv", "--no-hosts",
                "--listen-address=127.0.0.1", "--bind-interfaces", "--local=/test/", "--pid-file=", "--user=root",
                "--log-facility=-",
            ])
        } catch {
            Self.remove(name: name)
            throw error
        }
        let dnsmasq = self.dnsmasq
        do {
            // dnsmasq says "started" once it listens.
            try await eventually(timeout: .seconds(15), "dnsmasq starts in \(name): \(dnsmasq.standardError)") {
                if let status = dnsmasq.poll() { throw TestFailure("dnsmasq exited with \(status): \(dnsmasq.standardError)") }
                return dnsmasq.standardError.contains("started")
            }
        } catch {
            stop()
            throw error
        }
    }

    /// The files `ip netns exec` binds over `/etc`. ReachdHostMonitorTests' namespaces share
    /// `/etc/netns` and remove it when they leave it empty, so making it is retried.
    private static func writeConfiguration(in directory: String) throws {
        for attempt in 1...5 {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                try "127.0.0.1 localhost\n::1 localhost\n\(unroutedAddress) noroute.test\n"
                    .write(toFile: directory + "/hosts", atomically: false, encoding: .utf8)
                try "nameserver 127.0.0.1\n".write(toFile: directory + "/resolv.conf", atomically: false, encoding: .utf8)
                return
            } catch where attempt < 5 {
                usleep(50_000)
            }
        }
    }

    /// `reachctl ARGUMENTS…` in the namespace, on `session`, in English.
    func reachctl(_ arguments: [String], session: PrivateBus) async throws -> ToolResult {
        try await runTool("/usr/sbin/ip", ["netns", "exec", name, Executables.reachctl] + arguments,
                          environment: ["DBUS_SESSION_BUS_ADDRESS": session.address,
                                        "LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8"])
    }

    /// Stops dnsmasq, deletes the namespace and its files.
    func stop() {
        dnsmasq.stop(SIGTERM)
        Self.remove(name: name)
    }

    private static func remove(name: String) {
        let deletion = try? ChildProcess("/usr/sbin/ip", ["netns", "del", name])
        deletion?.waitBlocking()
        try? FileManager.default.removeItem(atPath: "/etc/netns/\(name)")
        rmdir("/etc/netns")  // only when no other test's namespace still has files there
    }
}

/// Runs `body` with reachd serving `world`'s session bus from inside a fresh `HostCauseNamespace`,
/// and takes both down on every path out.
func withReachdInHostCauseNamespace<T>(_ world: World, _ body: (HostCauseNamespace) async throws -> T) async throws -> T {
    let namespace = try await HostCauseNamespace()
    defer { namespace.stop() }
    return try await withReachd(session: world.session, systemBus: world.system.address, network: .named(namespace.name),
                                arguments: ["--no-override"]) { _ in
        try await body(namespace)
    }
}
