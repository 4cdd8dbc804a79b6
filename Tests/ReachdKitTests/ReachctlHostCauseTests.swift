import Foundation
import ReachdTestSupport
import Testing

/// `reachctl host` and `wait --host` as scripts and people use them: the exit status says
/// whether the host is reachable, and a failed wait names the real cause. reachd answers
/// Not Reachable with flags 0 both for a name that does not resolve and for an address with
/// no route, so these tests hold reachctl to telling them apart. Everything runs in a
/// `HostCauseNamespace`, whose names and routes the test decides.
@Suite("reachctl host and wait --host: exit statuses and causes", .timeLimit(.minutes(2)))
struct ReachctlHostCauseTests {
    @Test("host exits 0 when the host is reachable and 1 when it is not, like wait --timeout 0")
    func hostExitStatusSaysWhetherReachable() async throws {
        try await withWorld(.absent) { world in
            try await withReachdInHostCauseNamespace(world) { namespace in
                func run(_ arguments: String...) async throws -> ToolResult {
                    try await namespace.reachctl(arguments, session: world.session)
                }
                let loopback = try await run("host", "127.0.0.1")
                #expect(loopback.status == 0, "\(loopback.transcript)")
                #expect(loopback.standardOutput.hasPrefix("127.0.0.1: Reachable via WiFi"), "\(loopback.transcript)")

                let noRoute = try await run("host", "noroute.test")
                #expect(noRoute.status == 1, "\(noRoute.transcript)")
                #expect(noRoute.standardOutput.hasPrefix("noroute.test: Not Reachable  flags: 0"), "\(noRoute.transcript)")

                let noName = try await run("host", "nosuch.test")
                #expect(noName.status == 1, "\(noName.transcript)")

                // JSON is printed all the same; the status is the verdict.
                let json = try await run("host", "--json", HostCauseNamespace.unroutedAddress)
                #expect(json.status == 1, "\(json.transcript)")
                let object = try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any]
                #expect(object?["reachable"] as? Bool == false, "\(json.transcript)")

                for host in ["127.0.0.1", "noroute.test", "nosuch.test"] {
                    let host1 = try await run("host", host)
                    let wait = try await run("wait", "--host", host, "--timeout", "0")
                    #expect(host1.status == wait.status, "host \(host): \(host1.transcript)\nwait: \(wait.transcript)")
                }
            }
        }
    }

    @Test("wait --host says the name did not resolve, or that its address has no route, never 'host … host'")
    func waitNamesWhyAHostIsNotReached() async throws {
        try await withWorld(.absent) { world in
            try await withReachdInHostCauseNamespace(world) { namespace in
                func wait(_ host: String, _ timeout: String) async throws -> ToolResult {
                    try await namespace.reachctl(["wait", "--host", host, "--timeout", timeout], session: world.session)
                }
                // Each once checked at once, and once waited for (the cause found while waiting).
                let cases: [(host: String, cause: String)] = [
                    ("nosuch.test", "host nosuch.test not reached: name not resolved (no such name)"),
                    ("noroute.test", "host noroute.test not reached: no route to \(HostCauseNamespace.unroutedAddress)"),
                    (HostCauseNamespace.unroutedAddress, "host \(HostCauseNamespace.unroutedAddress) not reached: no route"),
                    // dnsmasq has no upstream server and refuses names outside .test.
                    ("example.org", "host example.org not reached: name not resolved (no usable answer from the DNS server)"),
                ]
                for (host, cause) in cases {
                    let now = try await wait(host, "0")
                    #expect(now.status == 1, "\(now.transcript)")
                    #expect(now.standardError.contains("not met now: \(cause)\n"), "\(now.transcript)")

                    let waited = try await wait(host, "2")
                    #expect(waited.status == 1, "\(waited.transcript)")
                    #expect(waited.standardError.contains("timed out after 2 s: \(cause)\n"), "\(waited.transcript)")
                    #expect(!waited.standardError.contains("host \(host) host"), "\(waited.transcript)")
                }
            }
        }
    }

    @Test("wait --host NAME:PORT says why the TCP connection failed: refused, no route to host, timed out")
    func waitNamesWhyATCPConnectionFailed() async throws {
        try await withWorld(.absent) { world in
            try await withReachdInHostCauseNamespace(world) { namespace in
                func wait(_ target: String) async throws -> ToolResult {
                    try await namespace.reachctl(["wait", "--host", target, "--timeout", "0"], session: world.session)
                }
                // Nothing listens in the namespace: the kernel answers the SYN with a reset.
                let refused = try await wait("127.0.0.1:9")
                #expect(refused.status == 1, "\(refused.transcript)")
                #expect(refused.standardError.contains("no TCP connection to 127.0.0.1:9: connection refused"), "\(refused.transcript)")

                // On the link, but nobody answers ARP: reachd says reachable (a route on rv0), connect cannot send.
                let silent = try await wait("\(HostCauseNamespace.silentNeighbour):80")
                #expect(silent.status == 1, "\(silent.transcript)")
                #expect(silent.standardError.contains("no TCP connection to \(HostCauseNamespace.silentNeighbour):80: no route to host"),
                        "\(silent.transcript)")

                // Beyond the gateway, the SYN vanishes: --timeout 0 gives the handshake 5 s.
                let started = ContinuousClock.now
                let lost = try await wait("\(HostCauseNamespace.timedOutAddress):80")
                #expect(lost.status == 1, "\(lost.transcript)")
                #expect(lost.standardError.contains("no TCP connection to \(HostCauseNamespace.timedOutAddress):80: timed out after 5 s"),
                        "\(lost.transcript)")
                #expect(ContinuousClock.now - started >= .seconds(5))
            }
        }
    }
}
