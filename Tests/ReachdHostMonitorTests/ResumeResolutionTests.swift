import Foundation
import ReachdTestSupport
import Testing

/// Waking from sleep, reachd asks the DNS server again for every name it watches: the name
/// may have moved while the machine slept (§7.2). logind is python-dbusmock's template on the
/// namespaces' system bus; the DNS server is the peer's dnsmasq, whose query log is counted.
@Suite("Resume re-resolves monitored names", .serialized, .timeLimit(.minutes(2)))
struct ResumeResolutionTests {
    @Test func wakingAsksTheDNSServerAgainAtWakeAndFiveSecondsLater() async throws {
        try await withReachdInNamespace { namespaces, client in
            let monitor = try await client.managerForDomain(namespaces.dnsName)
            try await eventually(timeout: .seconds(20), "the first answer") {
                try await client.answer(of: monitor) == .reachableDirect
            }
            let logind = try ChildProcess("/usr/bin/python3", ["-m", "dbusmock", "--system", "--template", "logind"],
                                          environment: ["DBUS_SYSTEM_BUS_ADDRESS": namespaces.systemBusAddress],
                                          unsetting: ["PYTHONPATH", "PYTHONHOME"])
            defer { logind.stop(SIGKILL) }
            try await eventually(timeout: .seconds(20), "dbusmock owns org.freedesktop.login1") {
                try await runTool("busctl", ["--address=\(namespaces.systemBusAddress)", "status", "org.freedesktop.login1"]).succeeded
            }
            // Nothing asks for the name while the network stands still.
            try await Task.sleep(for: .seconds(1))
            let before = try queries(for: namespaces)
            try await Task.sleep(for: .seconds(1))
            #expect(try queries(for: namespaces) == before, "no query without a reason")

            // The second round starts 5 s after reachd receives the signal, so a query seen
            // less than 5 s after the moment before the signal was sent can only be the one at
            // wake; timed from there, the time busctl takes is not taken from that room.
            let woken = ContinuousClock.now
            try await runToolChecked("busctl", [
                "--address=\(namespaces.systemBusAddress)", "call", "org.freedesktop.login1", "/org/freedesktop/login1",
                "org.freedesktop.DBus.Mock", "EmitSignal", "sssav", "org.freedesktop.login1.Manager",
                "PrepareForSleep", "b", "1", "b", "false"])
            try await eventually(timeout: .seconds(10), pollingEvery: .milliseconds(100), "asked again at wake") {
                try queries(for: namespaces) > before
            }
            let firstQuery = ContinuousClock.now - woken
            #expect(firstQuery < .seconds(5), "asked at wake, not only 5 s later: the first query was seen after \(firstQuery)")
            let atWake = try queries(for: namespaces)
            try await eventually(timeout: .seconds(10), pollingEvery: .milliseconds(200), "asked again 5 s after wake") {
                try queries(for: namespaces) > atWake
            }
            #expect(try await client.answer(of: monitor) == .reachableDirect)
        }
    }

    /// How many times dnsmasq has been asked for the peer's name's IPv4 address (`--log-queries`).
    func queries(for namespaces: NetworkNamespaces) throws -> Int {
        let log = try String(contentsOfFile: namespaces.directory + "/dnsmasq.log", encoding: .utf8)
        return log.split(separator: "\n").filter { $0.contains("query[A] \(namespaces.dnsName) ") }.count
    }
}
