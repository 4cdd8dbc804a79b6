import Foundation
import ReachdTestSupport
import Testing

/// reachd's command line, and the shape of the running process, as an
/// administrator or a unit file sees them.
@Suite("reachd's command line and process", .timeLimit(.minutes(1)))
struct CommandLineTests {
    @Test("--help lists every option and exits 0")
    func helpListsTheOptions() async throws {
        let help = try await runTool(ReachdProcess.executable, ["--help"])
        #expect(help.status == 0, "\(help.transcript)")
        for option in ["--replace", "--system-bus-address", "--settle-ms", "--max-monitors-per-client", "--max-monitors", "--log-level",
                       "--log-target", "--probe-ipv4", "--probe-ipv6", "--route-events", "--override-delay-ms", "--no-override",
                       "--connectivity-uri", "--connectivity-response", "--connectivity-interval", "--connectivity-timeout"] {
            #expect(help.standardOutput.contains(option), "--help mentions \(option): \(help.transcript)")
        }
    }

    @Test("a bad command line exits 64 (EX_USAGE) and says what is wrong, without touching the bus",
          arguments: [
            (["--settle-ms", "-1"], "--settle-ms"),
            (["--settle-ms=soon"], "soon"),
            (["--max-monitors", "0"], "--max-monitors"),
            (["--max-monitors-per-client"], "missing value"),
            (["--log-level", "loud"], "loud"),
            (["--log-target", "journal"], "--log-target is auto, stderr or syslog, not 'journal'"),
            (["--log-target"], "missing value"),
            (["--replace=yes"], "--replace"),
            (["--frobnicate"], "--frobnicate"),
            (["--check-config=yes"], "--check-config takes no value"),
            (["--check-config", "--settle-ms", "-1"], "--settle-ms"),
            (["--probe-ipv4", "0.0.0.0"], "local address"),
            (["--probe-ipv6=::"], "local address"),
            (["--probe-ipv4", "2001:db8::1"], "IPv4 address"),
            (["--probe-ipv6", "192.0.2.1"], "IPv6 address"),
            (["--probe-ipv4", "1.2.3"], "'1.2.3'"),
            (["--route-events", "some"], "all or filtered"),
            (["--override-delay-ms", "-5"], "--override-delay-ms"),
            (["--no-override=yes"], "--no-override"),
            (["--connectivity-uri", "https://example.org/"], "http://"),
            (["--connectivity-uri=example.org"], "http://"),
            (["--connectivity-uri", "http://"], "--connectivity-uri"),
            (["--connectivity-uri", "http:///check"], "needs a host"),
            (["--connectivity-uri", "http://example.org:0/"], "port"),
            (["--connectivity-uri", "http://user@example.org/"], "user name"),
            (["--connectivity-uri", "http://example.org/a b"], "cannot contain spaces (write one as %20)"),
            (["--connectivity-uri", "http://bücher.example/"], "non-ASCII"),
            (["--connectivity-interval", "-1"], "--connectivity-interval"),
            (["--connectivity-timeout", "0"], "--connectivity-timeout"),
            (["--connectivity-response"], "missing value"),
            // Issue 29: beyond the range, each of these killed reachd by SIGILL once a timer was armed.
            (["--connectivity-interval", "10000000000000000"],
             "--connectivity-interval needs a whole number of seconds from 0 to 31536000 (a year), not '10000000000000000'"),
            (["--connectivity-timeout", "1e16"], "--connectivity-timeout needs a whole number of seconds from 1 to 31536000 (a year)"),
            (["--connectivity-timeout=9223372036854775807"], "from 1 to 31536000 (a year), not '9223372036854775807'"),
            (["--connectivity-interval", "31536001"], "from 0 to 31536000 (a year)"),
            (["--connectivity-interval", "nan"], "not 'nan'"),
            (["--settle-ms", "99999999999999999999"],
             "--settle-ms needs a whole number of milliseconds from 0 to 31536000000 (a year), not '99999999999999999999'"),
            (["--override-delay-ms", "31536000001"], "--override-delay-ms needs a whole number of milliseconds from 0 to 31536000000"),
            (["--override-delay-ms", "inf"], "not 'inf'"),
            (["--max-monitors", "1000001"], "--max-monitors needs a whole number from 1 to 1000000, not '1000001'"),
            (["--max-monitors-per-client", "-9223372036854775808"], "from 1 to 1000000"),
            // Issue 33: an address libdbus cannot read was a warning, and reachd served without NetworkManager.
            (["--system-bus-address", "garbage"], "--system-bus-address needs a D-Bus address (unix:path=…), not 'garbage'"),
            (["--system-bus-address=unix:path=/a;nonsense"], "--system-bus-address needs a D-Bus address"),
          ])
    func badCommandLineExits64(arguments: [String], named: String) async throws {
        let result = try await runTool(ReachdProcess.executable, arguments,
                                       environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"])
        #expect(result.status == 64, "\(result.transcript)")
        #expect(result.standardError.contains(named), "stderr names the problem: \(result.transcript)")
    }

    @Test("--help says how far numbers go: durations up to a year, monitor limits up to a million")
    func helpGivesTheRanges() async throws {
        let help = try await runToolChecked(ReachdProcess.executable, ["--help"])
        #expect(help.standardOutput.contains("durations up to a year (31536000 s, 31536000000 ms)"), "\(help.transcript)")
        #expect(help.standardOutput.contains("monitor limits up to 1000000"), "\(help.transcript)")
    }

    @Test("the bounds themselves are taken, and reachd serves with them")
    func boundsAreTaken() async throws {
        try await withPrivateBus { session in
            try await withReachd(session: session, systemBus: absentSystemBusAddress(),
                                 arguments: ["--override-delay-ms=31536000000", "--max-monitors=1000000",
                                             "--max-monitors-per-client=1000000", "--connectivity-timeout=31536000",
                                             "--connectivity-interval=31536000"]) { _ in
                let status = try await session.getStatus()
                #expect(status.succeeded, "\(status.transcript)")
            }
        }
    }

    @Test("options also take their value after '=', and reachd serves with them")
    func optionsWithEquals() async throws {
        try await withPrivateBus { session in
            try await withReachd(session: session, systemBus: absentSystemBusAddress(),
                                 arguments: ["--settle-ms=0", "--log-level=error", "--max-monitors=10"]) { reachd in
                let status = try await session.getStatus()
                #expect(status.standardOutput == "(2, uint32 2)\n", "\(status.transcript)")
                #expect(!reachd.standardError.contains(" info "), "only errors are logged: \(reachd.standardError)")
            }
        }
    }

    @Test("the connectivity check's options are taken (http:// only, an empty response allowed), and reachd serves with them")
    func connectivityOptions() async throws {
        try await withPrivateBus { session in
            try await withReachd(session: session, systemBus: absentSystemBusAddress(),
                                 arguments: ["--connectivity-uri", "http://[2001:db8::1]:8080/check?x=1", "--connectivity-response=",
                                             "--connectivity-interval", "0", "--connectivity-timeout=1"]) { _ in
                let status = try await session.getStatus()
                #expect(status.succeeded, "\(status.transcript)")
            }
        }
    }

    @Test("reachd serves from one thread: nothing else in it can wake up while the network is quiet")
    func servesFromOneThread() async throws {
        try await withPrivateBus { session in
            try await withReachd(session: session, systemBus: absentSystemBusAddress(), network: .current) { reachd in
                for _ in 0..<3 { _ = try await session.getStatus() }
                let threads = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(reachd.pid)/task")
                #expect(threads.count == 1, "threads: \(threads)")
            }
        }
    }
}
