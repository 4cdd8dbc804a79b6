import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// reachd's own connectivity check (contract 3, §2.3), where NetworkManager does not check:
/// reachd runs in a client network namespace whose only uplink is a veth to a peer namespace,
/// where the test runs a web server that answers the check's URLs as the Internet, a captive
/// portal or a broken server would, and counts every request. The peer's address is also the
/// client's only DNS server, which never answers (a hung DNS server).
@Suite("reachd's own connectivity check", .serialized, .timeLimit(.minutes(3)))
struct ReachdConnectivityCheckTests {
    /// The namespaces and the web server.
    struct Lab {
        let client: String
        let peer: String
        /// The first three octets of the veth's /24: the peer is .1, the client .2.
        let net: String
        let server: ChildProcess
        let session: PrivateBus

        var peerAddress: String { "\(net).1" }
        func uri(_ path: String, port: Int = 8080) -> String { "http://\(peerAddress):\(port)\(path)" }

        /// The requests the server has had for `path` (any path when nil).
        func hits(_ path: String? = nil) -> Int {
            server.standardOutput.split(separator: "\n").filter { line in
                line.hasPrefix("HIT ") && (path.map { line.hasPrefix("HIT \($0) ") } ?? true)
            }.count
        }

        /// When each request came (the server's monotonic clock, seconds).
        func times() -> [Double] {
            server.standardOutput.split(separator: "\n").compactMap { line in
                line.hasPrefix("TIME ") ? Double(line.dropFirst(5)) : nil
            }
        }

        func requests() -> [String] { server.standardOutput.split(separator: "\n").map(String.init).filter { $0.hasPrefix("HIT ") } }

        /// `ip -n NAMESPACE ARGUMENTS…`; a failure fails the test.
        func ip(_ namespace: String, _ arguments: String...) async throws {
            try await runToolChecked("/usr/sbin/ip", ["-n", namespace] + arguments)
        }

        /// A property of reachd's, as busctl prints it (`s "full"`).
        func property(_ name: String) async throws -> String {
            try await runToolChecked("busctl", ["--address=\(session.address)", "get-property", ReachdProcess.busName,
                                                ReachdProcess.path, ReachdProcess.interface, name])
                .standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// The web server: each path answers one way (in portal mode, every path redirects); every
    /// request is printed as `HIT PATH USER-AGENT HOST from CLIENT-ADDRESS`. With `silentDNS` it
    /// also swallows DNS queries on port 53. An address with a colon is served over IPv6.
    static let serverScript = """
        import http.server, socket, sys, threading, time
        address, port, silent_dns, portal = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4] == "portal"
        answers = {
            "/online": (200, {}, b"NetworkManager is online\\n"),
            "/keep-open": (200, {}, b"NetworkManager is online\\n"),
            "/ok": (200, {}, b"OK"),
            "/check": (200, {}, b"reachd-online"),
            "/204": (204, {}, b""),
            "/redirect": (302, {"Location": "http://portal.reachd.test/login?from=check"}, b"<html>moved</html>"),
            "/login": (200, {}, b"<html><body>Please log in</body></html>"),
        }
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def do_GET(self):
                print("HIT %s %s %s from %s" % (self.path, self.headers.get("User-Agent"), self.headers.get("Host"),
                                                 self.client_address[0]), flush=True)
                print("TIME %.3f" % time.monotonic(), flush=True)
                status, headers, body = answers["/redirect" if portal else self.path] if portal or self.path in answers else (404, {}, b"not here")
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                if status != 204:
                    self.send_header("Content-Length", str(len(body)))
                self.send_header("Connection", "close")
                self.end_headers()
                if status != 204:
                    self.wfile.write(body)
                if self.path == "/keep-open":
                    # A server that ignores Connection: close and keeps the connection open.
                    self.wfile.flush()
                    time.sleep(60)
            def log_message(self, *args):
                pass
        if silent_dns:
            dns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            dns.bind((address, 53))
            threading.Thread(target=lambda: [dns.recvfrom(4096) for _ in iter(int, 1)], daemon=True).start()
        class Server(http.server.ThreadingHTTPServer):
            address_family = socket.AF_INET6 if ":" in address else socket.AF_INET
        server = Server((address, port), Handler)
        print("ready", flush=True)
        server.serve_forever()
        """

    /// Starts the server in `namespace` on `address`:`port`, and waits until it listens.
    static func serve(in namespace: String, address: String, port: Int, silentDNS: Bool = false,
                      portal: Bool = false) async throws -> ChildProcess {
        let server = try ChildProcess("/usr/sbin/ip", ["netns", "exec", namespace, "/usr/bin/python3", "-c", serverScript,
                                                       address, String(port), silentDNS ? "1" : "0", portal ? "portal" : "-"],
                                      unsetting: ["PYTHONPATH", "PYTHONHOME"])
        try await eventually(timeout: .seconds(10), "the web server listens: \(server.standardError)") {
            if let status = server.poll() { throw TestFailure("the web server exited with \(status): \(server.standardError)") }
            return server.standardOutput.contains("ready")
        }
        return server
    }

    /// Makes the namespaces, the server and a private session bus, and runs `body`; everything goes on every way out.
    static func withLab(_ body: (Lab) async throws -> Void) async throws {
        guard geteuid() == 0 else {
            throw TestFailure("this test needs root (it makes network namespaces); run the tests as root, e.g. with sudo -E Scripts/test")
        }
        let tag = "\(getpid() % 10000)\(UInt8.random(in: 10...99))"
        let client = "rcc\(tag)c", peer = "rcc\(tag)p"
        let net = "10.\(Int.random(in: 64...127)).\(Int.random(in: 1...254))"
        let resolver = "/etc/netns/\(client)"
        defer {
            for namespace in [client, peer] {
                if let delete = try? ChildProcess("/usr/sbin/ip", ["netns", "delete", namespace]) { delete.waitBlocking(); delete.removeOutput() }
            }
            try? FileManager.default.removeItem(atPath: resolver)
        }
        for command in [
            ["netns", "add", client], ["netns", "add", peer],
            ["-n", client, "link", "add", "chk0", "type", "veth", "peer", "name", "chk1", "netns", peer],
            ["-n", client, "link", "set", "lo", "up"], ["-n", peer, "link", "set", "lo", "up"],
            ["-n", client, "address", "add", "\(net).2/24", "dev", "chk0"],
            ["-n", peer, "address", "add", "\(net).1/24", "dev", "chk1"],
            ["-n", peer, "address", "add", "\(net).3/24", "dev", "chk1"],
            ["-n", client, "link", "set", "chk0", "up"], ["-n", peer, "link", "set", "chk1", "up"],
            ["-n", client, "route", "add", "default", "via", "\(net).1"],
        ] {
            try await runToolChecked("/usr/sbin/ip", command)
        }
        // `ip netns exec` binds this over /etc/resolv.conf: the client asks only the silent peer.
        try FileManager.default.createDirectory(atPath: resolver, withIntermediateDirectories: true)
        try "nameserver \(net).1\noptions timeout:30 attempts:1\n".write(toFile: resolver + "/resolv.conf", atomically: true, encoding: .utf8)
        let server = try await serve(in: peer, address: "\(net).1", port: 8080, silentDNS: true)
        defer { server.stop(SIGKILL) }
        try await withPrivateBus { session in
            try await body(Lab(client: client, peer: peer, net: net, server: server, session: session))
        }
    }

    /// reachd in the lab's client namespace, without NetworkManager (no system bus), checking with `arguments`.
    static func withReachd(_ lab: Lab, _ arguments: [String], systemBus: String = absentSystemBusAddress(),
                           _ body: (ReachdProcess) async throws -> Void) async throws {
        try await ReachdTestSupport.withReachd(session: lab.session, systemBus: systemBus, network: .named(lab.client),
                                         arguments: ["--no-config", "--log-level", "debug"] + arguments, body)
    }

    /// Waits until reachd publishes `expected` for each property named.
    static func expect(_ lab: Lab, _ reachd: ReachdProcess, _ expected: KeyValuePairs<String, String>,
                       within timeout: Duration = .seconds(15), _ what: String) async throws {
        var seen: [String] = []
        do {
            try await eventually(timeout: timeout, pollingEvery: .milliseconds(100), what) {
                seen = []
                for (name, _) in expected { seen.append("\(name) = \(try await lab.property(name))") }
                return seen == expected.map { "\($0.key) = \($0.value)" }
            }
        } catch {
            throw TestFailure("\(what): expected \(expected), reachd publishes \(seen)\nserver: \(lab.requests())\nreachd:\n\(reachd.standardError)")
        }
    }

    /// reachctl, built beside reachd.
    static let reachctl = URL(fileURLWithPath: ReachdProcess.executable).deletingLastPathComponent()
        .appendingPathComponent("reachctl").path

    // Flags: Reachable 0x2, ConnectionRequired 0x4, InterventionRequired 0x10.

    @Test("the expected body: online, checked by reachd, with reachd's User-Agent and the URI's Host")
    func expectedBodyIsOnline() async throws {
        try await Self.withLab { lab in
            try await Self.withReachd(lab, ["--connectivity-uri", lab.uri("/online")]) { reachd in
                try await Self.expect(lab, reachd, ["Connectivity": "s \"full\"", "Level": "s \"online\"",
                                                    "ConnectivityChecked": "b true", "Status": "i 2",
                                                    "CaptivePortalURL": "s \"\""], "the check passes")
                let details = try await lab.property("Details")
                #expect(details.contains("\"check-source\" s \"reachd\""), "\(details)")
                #expect(details.contains("\"check-uri\" s \"\(lab.uri("/online"))\""), "\(details)")
                #expect(details.contains("\"check-http-status\" u 200"), "\(details)")
                #expect(details.contains("\"check-usec\" t "), "\(details)")
                let request = try #require(lab.requests().first)
                #expect(request.hasPrefix("HIT /online reachd/"), "\(request)")
                #expect(request.hasSuffix(" \(lab.peerAddress):8080 from \(lab.net).2"), "\(request)")
            }
        }
    }

    @Test("a server that keeps the connection open: the answer counts once its Content-Length is read, long before the timeout")
    func keptOpenConnectionIsAnswered() async throws {
        try await Self.withLab { lab in
            try await Self.withReachd(lab, ["--connectivity-uri", lab.uri("/keep-open"), "--connectivity-timeout", "30"]) { reachd in
                try await Self.expect(lab, reachd, ["Connectivity": "s \"full\""], within: .seconds(15), "the answer is read")
            }
        }
    }

    @Test("both families: one request over each, from each path's source address; the better verdict counts (full over portal)")
    func bothFamiliesAreChecked() async throws {
        try await Self.withLab { lab in
            let v6 = "fd42:\(String(Int.random(in: 1...0xfff), radix: 16))::"
            try await lab.ip(lab.peer, "address", "add", "\(v6)1/64", "dev", "chk1", "nodad")
            try await lab.ip(lab.client, "address", "add", "\(v6)2/64", "dev", "chk0", "nodad")
            try await lab.ip(lab.client, "route", "add", "default", "via", "\(v6)1")
            // The name has an address of each family (`ip netns exec` binds this over /etc/hosts).
            try "127.0.0.1 localhost\n\(lab.peerAddress) check.reachd.test\n\(v6)1 check.reachd.test\n"
                .write(toFile: "/etc/netns/\(lab.client)/hosts", atomically: true, encoding: .utf8)
            // Over IPv4 a portal; over IPv6 the Internet.
            let portal = try await Self.serve(in: lab.peer, address: lab.peerAddress, port: 8081, portal: true)
            defer { portal.stop(SIGKILL) }
            let internet = try await Self.serve(in: lab.peer, address: "\(v6)1", port: 8081)
            defer { internet.stop(SIGKILL) }
            try await Self.withReachd(lab, ["--connectivity-uri", "http://check.reachd.test:8081/online"]) { reachd in
                try await Self.expect(lab, reachd, ["SupportsIPv4": "b true", "SupportsIPv6": "b true",
                                                    "Connectivity": "s \"full\"", "Level": "s \"online\"",
                                                    "CaptivePortalURL": "s \"\""], "the IPv6 answer counts")
                #expect(portal.standardOutput.contains("HIT /online reachd/"), "IPv4 asked: \(portal.standardOutput)")
                #expect(portal.standardOutput.contains(" from \(lab.net).2\n"), "from IPv4's source: \(portal.standardOutput)")
                #expect(internet.standardOutput.contains(" from \(v6)2\n"), "from IPv6's source: \(internet.standardOutput)")
            }
        }
    }

    @Test("a 204 with an empty response expected: online")
    func noContentIsOnline() async throws {
        try await Self.withLab { lab in
            try await Self.withReachd(lab, ["--connectivity-uri", lab.uri("/204"), "--connectivity-response", ""]) { reachd in
                try await Self.expect(lab, reachd, ["Connectivity": "s \"full\"", "Level": "s \"online\""], "a 204 passes")
            }
        }
    }

    @Test("a 302: a captive portal, its Location as CaptivePortalURL; Status 0, Flags as NetworkManager's portal")
    func redirectIsPortal() async throws {
        try await Self.withLab { lab in
            try await Self.withReachd(lab, ["--connectivity-uri", lab.uri("/redirect")]) { reachd in
                try await Self.expect(lab, reachd, [
                    "Connectivity": "s \"portal\"", "Status": "i 0", "Flags": "u 22", "UnsatisfiedReason": "s \"portal\"",
                    "CaptivePortalURL": "s \"http://portal.reachd.test/login?from=check\"", "ConnectivityChecked": "b true",
                ], "the redirect is a portal")
                #expect(try await lab.property("Details").contains("\"check-http-status\" u 302"))

                // reachctl status says who checked and where to log in.
                let environment = ["DBUS_SESSION_BUS_ADDRESS": lab.session.address, "LANG": "C.UTF-8"]
                // In reachd's namespace, where reachctl uses it.
                let (tool, status_) = reachd.inItsNamespace(Self.reachctl, ["status"])
                let status = try await runTool(tool, status_, environment: environment)
                #expect(status.standardOutput.contains("\n  checked by:   reachd\n"), "\(status.transcript)")
                #expect(status.standardOutput.contains("\n  log in at:    http://portal.reachd.test/login?from=check"), "\(status.transcript)")
                let (jsonTool, jsonArguments) = reachd.inItsNamespace(Self.reachctl, ["status", "--json"])
                let json = try await runTool(jsonTool, jsonArguments, environment: environment)
                #expect(json.standardOutput.contains("\"captivePortalURL\":\"http://portal.reachd.test/login?from=check\""), "\(json.transcript)")
                #expect(json.standardOutput.contains("\"connectivityCheckSource\":\"reachd\""), "\(json.transcript)")
            }
        }
    }

    @Test("a 200 with another body: a captive portal at the check URI itself")
    func otherPageIsPortal() async throws {
        try await Self.withLab { lab in
            try await Self.withReachd(lab, ["--connectivity-uri", lab.uri("/login")]) { reachd in
                try await Self.expect(lab, reachd, ["Connectivity": "s \"portal\"", "Status": "i 0",
                                                    "CaptivePortalURL": "s \"\(lab.uri("/login"))\""], "a login page is a portal")
            }
        }
    }

    @Test("a closed port: limited; the path stays Reachable, the level stops at dns")
    func closedPortIsLimited() async throws {
        try await Self.withLab { lab in
            try await Self.withReachd(lab, ["--connectivity-uri", lab.uri("/online", port: 8099)]) { reachd in
                try await Self.expect(lab, reachd, ["Connectivity": "s \"limited\"", "Status": "i 2",
                                                    "ConnectivityChecked": "b true", "CaptivePortalURL": "s \"\""],
                                      "nothing listens")
                #expect(try await lab.property("Level") != "s \"online\"")
            }
        }
    }

    @Test("a name the DNS server never answers: limited once the timeout has passed, not before")
    func unansweredNameIsLimitedWithinTheTimeout() async throws {
        try await Self.withLab { lab in
            let started = ContinuousClock.now
            try await Self.withReachd(lab, ["--connectivity-uri", "http://check.slow.reachd.test:8080/online",
                                            "--connectivity-timeout", "3"]) { reachd in
                try await Self.expect(lab, reachd, ["Connectivity": "s \"limited\""], within: .seconds(20), "no DNS answer")
                #expect(ContinuousClock.now - started >= .seconds(3), "limited before the timeout: \(reachd.standardError)")
                #expect(lab.hits() == 0)
            }
        }
    }

    @Test("a change of the path's gateway checks again at once")
    func pathChangeChecksAgain() async throws {
        try await Self.withLab { lab in
            // interval 0: only a change (or CheckConnectivity) checks.
            try await Self.withReachd(lab, ["--connectivity-uri", lab.uri("/online"), "--connectivity-interval", "0"]) { reachd in
                try await Self.expect(lab, reachd, ["Connectivity": "s \"full\""], "the first check")
                try await Task.sleep(for: .seconds(1))
                let before = lab.hits()
                #expect(before == 1, "\(lab.requests())")
                try await lab.ip(lab.client, "route", "replace", "default", "via", "\(lab.net).3")
                try await eventually(timeout: .seconds(10), "a check after the gateway changed: \(lab.requests())\n\(reachd.standardError)") {
                    lab.hits() > before
                }
                try await Task.sleep(for: .seconds(3))
                #expect(lab.hits() == before + 1, "one check per change: \(lab.requests())")
            }
        }
    }

    @Test("a resume (logind's PrepareForSleep(false)) checks again, at wake and in the second round 5 s later")
    func resumeChecksAgain() async throws {
        try await Self.withLab { lab in
            // A system bus with logind (python-dbusmock) and no NetworkManager.
            let system = try PrivateBus(.system)
            defer { system.stop() }
            let logind = try ChildProcess("/usr/bin/python3", ["-m", "dbusmock", "--system", "--template", "logind"],
                                          environment: ["DBUS_SYSTEM_BUS_ADDRESS": system.address],
                                          unsetting: ["PYTHONPATH", "PYTHONHOME"])
            defer { logind.stop(SIGKILL) }
            try await eventually(timeout: .seconds(20), "dbusmock owns org.freedesktop.login1: \(logind.standardError)") {
                try await system.owner(of: "org.freedesktop.login1") != nil
            }
            try await Self.withReachd(lab, ["--connectivity-uri", lab.uri("/online"), "--connectivity-interval", "0"],
                                      systemBus: system.address) { reachd in
                try await Self.expect(lab, reachd, ["Connectivity": "s \"full\""], "the first check")
                try await Task.sleep(for: .seconds(1))
                #expect(lab.hits() == 1, "\(lab.requests())")
                try await runToolChecked("busctl", [
                    "--address=\(system.address)", "call", "org.freedesktop.login1", "/org/freedesktop/login1",
                    "org.freedesktop.DBus.Mock", "EmitSignal", "sssav", "org.freedesktop.login1.Manager",
                    "PrepareForSleep", "b", "1", "b", "false"])
                try await eventually(timeout: .seconds(10), "a check at wake: \(lab.requests())\n\(reachd.standardError)") {
                    lab.hits() >= 2
                }
                try await eventually(timeout: .seconds(20), "a check 5 s after wake: \(lab.requests())\n\(reachd.standardError)") {
                    lab.hits() >= 3
                }
            }
        }
    }

    @Test("after a portal verdict, checks again at 2, then 4 s (the back-off), though the interval is 300 s")
    func backOffAfterAFailure() async throws {
        try await Self.withLab { lab in
            try await Self.withReachd(lab, ["--connectivity-uri", lab.uri("/login")]) { reachd in
                try await eventually(timeout: .seconds(30), pollingEvery: .milliseconds(200),
                                     "three checks: \(lab.requests())\n\(reachd.standardError)") {
                    lab.times().count >= 3
                }
                let times = lab.times()
                let (first, second) = (times[1] - times[0], times[2] - times[1])
                // Never early; late only by what a loaded machine adds.
                #expect(first >= 1.95 && first < 8, "\(times)")
                #expect(second >= 3.95 && second < 10, "\(times)")
            }
        }
    }

    @Test("interval 2: a check about every 2 s while there is a path")
    func intervalIsKeptTo() async throws {
        try await Self.withLab { lab in
            try await Self.withReachd(lab, ["--connectivity-uri", lab.uri("/online"), "--connectivity-interval", "2"]) { reachd in
                try await Self.expect(lab, reachd, ["Connectivity": "s \"full\""], "the first check")
                let first = lab.hits()
                let started = ContinuousClock.now
                try await Task.sleep(for: .seconds(10))
                let elapsed = ContinuousClock.now - started
                let checks = lab.hits() - first
                // About 5 in 10 s; a loaded machine may be late, never early.
                #expect(checks >= 3 && checks <= 6, "\(checks) checks in \(elapsed): \(lab.requests())")
            }
        }
    }

    @Test("a year's interval and timeout: the check passes, the next one is armed a year away, and reachd lives on")
    func aYearIsTaken() async throws {
        try await Self.withLab { lab in
            try await Self.withReachd(lab, ["--connectivity-uri", lab.uri("/online"), "--connectivity-interval", "31536000",
                                            "--connectivity-timeout", "31536000", "--override-delay-ms", "31536000000"]) { reachd in
                try await Self.expect(lab, reachd, ["Connectivity": "s \"full\""], "the first check")
                // The loop has armed the next check's timer once it answers again; 1e16 s here killed reachd by SIGILL.
                let status = try await lab.property("Status")
                #expect(status == "i 2", "\(status)\n\(reachd.standardError)")
                #expect(reachd.process.poll() == nil, "reachd lives: \(reachd.standardError)")
            }
        }
    }

    @Test("no URI: no request at all, no system call while idle, and ConnectivityChecked stays false")
    func noURINoRequests() async throws {
        try await Self.withLab { lab in
            try await Self.withReachd(lab, []) { reachd in
                // Start-up settles (the link's IPv6 address finishes its DAD), then reachd is idle.
                try await Task.sleep(for: .seconds(3))
                let trace = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-idle-\(reachd.pid)").path
                defer { try? FileManager.default.removeItem(atPath: trace) }
                let strace = try ChildProcess("/usr/bin/strace", ["-f", "-o", trace, "-p", String(reachd.pid)])
                try await eventually(timeout: .seconds(10), "strace attaches: \(strace.standardError)") {
                    strace.standardError.contains("attached")
                }
                try await Task.sleep(for: .seconds(3))
                strace.stop(SIGINT)
                _ = try? await strace.exit(timeout: .seconds(10))
                // The wait reachd was in when strace let go is no call it made.
                let calls = ((try? String(contentsOfFile: trace, encoding: .utf8)) ?? "").split(separator: "\n")
                    .filter { !$0.contains("<detached") && !$0.contains("resuming interrupted") }
                #expect(calls.isEmpty, "system calls while idle: \(calls.prefix(20))")
                #expect(lab.hits() == 0, "\(lab.requests())")
                #expect(try await lab.property("ConnectivityChecked") == "b false")
                #expect(try await lab.property("Connectivity") == "s \"unknown\"")
            }
        }
    }

    @Test("CheckConnectivity() runs reachd's check where NetworkManager is absent")
    func checkConnectivityRunsTheCheck() async throws {
        try await Self.withLab { lab in
            try await Self.withReachd(lab, ["--connectivity-uri", lab.uri("/online"), "--connectivity-interval", "0"]) { reachd in
                try await Self.expect(lab, reachd, ["Connectivity": "s \"full\""], "the first check")
                let before = lab.hits()
                let answer = try await runToolChecked("busctl", ["--address=\(lab.session.address)", "call", ReachdProcess.busName,
                                                                 ReachdProcess.path, ReachdProcess.interface, "CheckConnectivity"])
                #expect(answer.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "s \"full\"")
                #expect(lab.hits() == before + 1, "\(lab.requests())")
            }
        }
    }

    @Test("reachctl wait --level online returns 0 without NetworkManager once the check passes")
    func waitForOnline() async throws {
        try await Self.withLab { lab in
            try await Self.withReachd(lab, ["--connectivity-uri", lab.uri("/online")]) { reachd in
                let (tool, arguments) = reachd.inItsNamespace(Self.reachctl, ["wait", "--level", "online", "--timeout", "30"])
                let result = try await runTool(tool, arguments,
                                               environment: ["DBUS_SESSION_BUS_ADDRESS": lab.session.address], timeout: .seconds(40))
                #expect(result.status == 0, "\(result.transcript)\n\(reachd.standardError)")
            }
        }
    }
}

/// reachd's check beside the real NetworkManager (Scripts/harness/nm-netns): reachd checks only
/// where NetworkManager's own check is off, and never doubles it.
extension RealNetworkManagerTests {
    /// NetworkManager in its namespaces, a web server for reachd's check on the peer's port 8081
    /// (NetworkManager's own check, with `--check`, asks port 8080), and reachd checking there.
    static func withReachdCheckingBesideNetworkManager(
        options: [String], _ body: (Namespaces, ReachdProcess, ChildProcess, _ property: (String) async throws -> String) async throws -> Void
    ) async throws {
        try await withNamespaces(options: options) { namespaces in
            let peer = try namespaces.value("PEER_NETNS"), address = try namespaces.value("PEER_ADDR")
            let server = try await ReachdConnectivityCheckTests.serve(in: peer, address: address, port: 8081)
            defer { server.stop(SIGKILL) }
            try await withPrivateBus { session in
                try await withReachd(session: session, systemBus: try namespaces.value("SYSTEM_BUS_ADDRESS"),
                                     network: .named(try namespaces.value("CLIENT_NETNS")),
                                     arguments: ["--no-config", "--log-level", "debug",
                                                 "--connectivity-uri", "http://\(address):8081/online"]) { reachd in
                    try await body(namespaces, reachd, server) { name in
                        try await runToolChecked("busctl", ["--address=\(session.address)", "get-property",
                                                            ReachdProcess.busName, ReachdProcess.path, ReachdProcess.interface, name])
                            .standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
                    }
                }
            }
        }
    }

    @Test("NetworkManager's check off: reachd checks, and says so (check-source reachd, Level online)")
    func reachdChecksWhereNetworkManagerDoesNot() async throws {
        try await Self.withReachdCheckingBesideNetworkManager(options: ["--no-dns"]) { namespaces, reachd, server, property in
            try await eventually(timeout: .seconds(15), pollingEvery: .milliseconds(100), "reachd's check passes:\n\(reachd.standardError)") {
                try await property("Details").contains("\"check-source\" s \"reachd\"")
            }
            #expect(try await property("Connectivity") == "s \"full\"")
            #expect(try await property("Level") == "s \"online\"")
            #expect(try await property("Backend") == "s \"networkmanager\"")
            #expect(server.standardOutput.contains("HIT /online reachd/"), "\(server.standardOutput)")
        }
    }

    @Test("NetworkManager's check on (nm-netns --check): reachd publishes it and its own server never hears from reachd")
    func reachdNeverDoublesNetworkManagersCheck() async throws {
        try await Self.withReachdCheckingBesideNetworkManager(options: ["--no-dns", "--check"]) { namespaces, reachd, server, property in
            // NetworkManager's check URL answered as the Internet answers it.
            let nmServer = try await ReachdConnectivityCheckTests.serve(
                in: try namespaces.value("PEER_NETNS"), address: try namespaces.value("PEER_ADDR"), port: 8080)
            defer { nmServer.stop(SIGKILL) }
            try await eventually(timeout: .seconds(20), pollingEvery: .milliseconds(200), "NetworkManager's check says FULL") {
                try await Self.nmProperty(namespaces, "Connectivity") == "u 4"
            }
            try await eventually(timeout: .seconds(10), "reachd publishes NetworkManager's check:\n\(reachd.standardError)") {
                try await property("Details").contains("\"check-source\" s \"networkmanager\"")
            }
            #expect(try await property("Level") == "s \"online\"")
            #expect(try await property("CaptivePortalURL") == "s \"\"")
            // NetworkManager checks every 2 s here; reachd would have checked at start and on every change.
            try await Task.sleep(for: .seconds(4))
            #expect(nmServer.standardOutput.contains("HIT /check"), "NetworkManager checked: \(nmServer.standardOutput)")
            #expect(!server.standardOutput.contains("HIT "), "reachd checked too: \(server.standardOutput)\n\(reachd.standardError)")
        }
    }
}
