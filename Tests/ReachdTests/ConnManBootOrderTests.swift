import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// A device's boot with the real connmand (contract 7, §4): BusyBox runs the boot script's
/// `reachctl wait` (a `sysinit` or `wait` line) before the `respawn` lines that start dbus-daemon
/// and then connmand. In RealConnManTests' namespaces, with their bus and connmand, one at a time.
extension RealConnManTests {
    @Test("a boot: reachctl wait --level online started before the system bus exists waits; the bus comes with nothing on it, then connmand: exit 0 once ConnMan says online")
    func waitBeforeTheBusThenConnmand() async throws {
        try await Self.withConnMan { namespaces in
            // connmand comes after the bus in this boot: stopped until then (its link keeps what it had).
            try await namespaces.run("stop-connman")
            let address = try namespaces.value("SYSTEM_BUS_ADDRESS")
            let bus = String(address.dropFirst("unix:path=".count).prefix { $0 != "," })
            #expect(address.hasPrefix("unix:path=") && FileManager.default.fileExists(atPath: bus), "\(address)")
            // The device's /run, not made yet: the wait's address names a socket whose folders do not exist.
            let run = namespaces.directory + "/boot/run"
            let socket = run + "/dbus/system_bus_socket"
            let reachctl = URL(fileURLWithPath: ReachdProcess.executable).deletingLastPathComponent().appendingPathComponent("reachctl").path

            let wait = try ChildProcess("/usr/sbin/ip", ["netns", "exec", try namespaces.value("CLIENT_NETNS"), reachctl,
                                                         "wait", "--level", "online", "--timeout", "120", "--json"],
                                        environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(socket)"],
                                        unsetting: ["DBUS_SESSION_BUS_ADDRESS", "REACHD_SERVICE", "XDG_RUNTIME_DIR"])
            defer { wait.stop(SIGKILL); wait.removeOutput() }
            func transcript() -> String { "\(wait.standardOutput)\(wait.standardError)\nconnmand:\n\(namespaces.log.suffix(2000))" }
            try await eventually(timeout: .seconds(20), "the wait runs: \(transcript())") {
                (try? String(contentsOfFile: "/proc/\(wait.pid)/comm", encoding: .utf8)) == "reachctl\n"
            }
            try await Task.sleep(for: .seconds(1))
            #expect(wait.poll() == nil, "no bus yet is not 'never': it waits. \(transcript())")

            // The bus: its socket appears where the address says, with no network daemon on it yet.
            try FileManager.default.createDirectory(atPath: run + "/dbus", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: socket, withDestinationPath: bus)
            try await Task.sleep(for: .seconds(2))
            #expect(wait.poll() == nil, "only the kernel beside a bus: a daemon may yet start, so it waits (never 5). \(transcript())")

            // connmand starts; its service goes online (DHCP, then its check against the peer).
            let connmanStarted = ContinuousClock.now
            try await namespaces.run("start-connman")
            #expect(try await wait.exit(timeout: .seconds(90)) == 0, "\(transcript())")
            #expect(wait.standardOutput.contains("\"level\":\"online\""), "\(transcript())")
            print("RealConnManTests: the boot's wait exited \(wait.poll().map(String.init) ?? "?") \(ContinuousClock.now - connmanStarted) after connmand started: \(wait.standardOutput)")
        }
    }
}
