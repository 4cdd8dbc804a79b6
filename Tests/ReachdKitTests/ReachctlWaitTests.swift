import Foundation
import Glibc
import ReachdKit
import ReachdTestSupport
import Testing

/// `reachctl wait` with levels, as scripts and units use it: exit 0 the moment the level
/// holds (at once when it already does), 1 when it does not, 5 when it never can here, 64
/// for a contradiction. reachd runs in a namespace of its own (rv0, default via
/// 192.0.2.1), behind python-dbusmock's NetworkManager, which runs no connectivity check.
@Suite("reachctl wait with levels", .timeLimit(.minutes(2)))
struct ReachctlWaitTests {
    @Test("already routable: wait returns at once, with no timer and no waiting")
    func alreadySatisfiedReturnsAtOnce() async throws {
        try await withWorld { world in
            try await world.waitForServiceStatus(.reachableViaWiFi)
            let started = ContinuousClock.now
            let result = try await world.reachctl("wait", "--level", "routable", "--timeout", "30")
            #expect(result.status == 0, "\(result.transcript)")
            #expect(ContinuousClock.now - started < .seconds(10), "no timeout was waited out")
            #expect(try await world.reachctl("wait", "--level", "dns", "--timeout", "0").status == 0)
        }
    }

    @Test("online where NetworkManager's check does not run: exit 5 at once, naming reachd's own check and its file")
    func onlineWithoutACheckExits5() async throws {
        try await withWorld { world in
            try await world.waitForServiceStatus(.reachableViaWiFi)
            let started = ContinuousClock.now
            let result = try await world.reachctl("wait", "--level", "online", "--timeout", "30", environment: ["XDG_CONFIG_HOME": ""])
            #expect(result.status == 5, "\(result.transcript)")
            #expect(ContinuousClock.now - started < .seconds(10))
            #expect(result.standardError.contains("--level dns"), "\(result.transcript)")
            // On exactly these machines the fix is reachd's own check: the line, and the file it goes in.
            #expect(result.standardError.contains("reachd's own check is off. Turn it on with [connectivity] uri=http://... in "
                                                  + "~/.config/reachd/reachd.conf (a system reachd reads /etc/reachd/reachd.conf)"),
                    "\(result.transcript)")
            let elsewhere = try await world.reachctl("wait", "--level", "online", "--timeout", "0",
                                                     environment: ["XDG_CONFIG_HOME": "/srv/ada/config"])
            #expect(elsewhere.status == 5 && elsewhere.standardError.contains(" in /srv/ada/config/reachd/reachd.conf "),
                    "\(elsewhere.transcript)")
        }
    }

    @Test("before any source answered, and while NetworkManager's check has not: online waits (never 5), the timeout names the check, and it exits 0 once the check says full")
    func onlineWaitsForAPendingCheck() async throws {
        try await withWorld(.absent) { world in
            // NetworkManager checks, and has not answered yet.
            for property in ["ConnectivityCheckEnabled", "ConnectivityCheckAvailable"] {
                _ = try await world.networkManager.call(NetworkManagerMock.manager, NetworkManagerMock.mockInterface, "AddProperty",
                                                        "ssv", NetworkManagerMock.name, property, "b", "true")
            }
            try await world.networkManager.setManager("Connectivity", "u", "0")
            // Before reachd (the only provider chosen) is there at all: nothing answered, nothing to conclude.
            let wait = try world.backgroundReachctl("wait", "--service", "session", "--level", "online", "--timeout", "60")
            defer { wait.stop(SIGKILL) }
            try await Task.sleep(for: .seconds(1))
            #expect(!wait.hasExited, "no source has answered: it waits. \(wait.output)")

            try await world.startService()
            try await world.waitForServiceStatus(.reachableViaWiFi)
            let quick = try await world.reachctl("wait", "--level", "online", "--timeout", "1")
            #expect(quick.status == 1, "NetworkManager's check may still say full: not 5. \(quick.transcript)")
            #expect(quick.standardError.contains("waiting for NetworkManager's check (it says unknown)"), "\(quick.transcript)")
            #expect(!quick.standardError.contains("is off"), "\(quick.transcript)")
            #expect(!wait.hasExited, "still waiting for the check: \(wait.output)")

            try await world.networkManager.setManager("Connectivity", "u", "4")
            #expect(try await wait.child.exit(timeout: .seconds(15)) == 0, "\(wait.output)")
        }
    }

    @Test("reachd's own check on (a URI set) beside a NetworkManager that does not check: online waits for it, and never says it is off")
    func onlineWaitsForReachdsOwnCheck() async throws {
        try await withWorld(.absent) { world in
            // TEST-NET-1 port 9: the check's connection never completes, so its verdict stays pending.
            try await world.startService(arguments: ["--connectivity-uri", "http://192.0.2.9:9/check"])
            try await world.waitForServiceStatus(.reachableViaWiFi)
            let result = try await world.reachctl("wait", "--level", "online", "--timeout", "2")
            #expect(result.status == 1, "reachd's own check may still say full: not 5. \(result.transcript)")
            #expect(result.standardError.contains("waiting for reachd's own check"), "\(result.transcript)")
            #expect(!result.standardError.contains("is off"), "\(result.transcript)")
        }
    }

    @Test("NetworkManager DISCONNECTED: link holds (the uplink has carrier), routable does not; -x exits 1 at once")
    func linkHoldsWhileRoutableDoesNot() async throws {
        try await withWorld { world in
            try await world.networkManager.setState(20, emittingStateChanged: false)
            try await world.waitForServiceStatus(.notReachable)
            #expect(try await world.reachctl("wait", "--level", "link", "--timeout", "0").status == 0)
            let started = ContinuousClock.now
            let early = try await world.reachctl("wait", "-x", "--timeout", "30")
            #expect(early.status == 1, "\(early.transcript)")
            #expect(ContinuousClock.now - started < .seconds(10), "nothing is being connected: no reason to wait")
        }
    }

    @Test("CONNECTING → CONNECTED_GLOBAL: wait returns on that change, driven by reachd's signal")
    func returnsOnTheChange() async throws {
        try await withWorld { world in
            try await world.networkManager.setState(40, emittingStateChanged: false)
            try await world.waitForServiceStatus(.notReachable)
            let wait = try world.backgroundReachctl("wait", "--level", "routable", "--timeout", "30", "--json")
            try await Task.sleep(for: .milliseconds(500))
            #expect(!wait.hasExited, "still waiting while CONNECTING: \(wait.output)")
            try await world.networkManager.setState(70, emittingStateChanged: false)
            let status = try await wait.child.exit(timeout: .seconds(15))
            #expect(status == 0, "\(wait.output)")
            let report = try JSONSerialization.jsonObject(with: Data(wait.standardOutput.utf8)) as? [String: Any]
            #expect(report?["satisfied"] as? Bool == true, "\(wait.standardOutput)")
            #expect(report?["level"] as? String == "dns", "\(wait.standardOutput)")
        }
    }

    @Test("reachd killed mid-wait: the wait goes on with the re-activated reachd, deadline unchanged")
    func survivesAReachdRestart() async throws {
        try await withWorld(.activatable) { world in
            try await world.networkManager.setState(40, emittingStateChanged: false)
            let wait = try world.backgroundReachctl("wait", "--level", "routable", "--timeout", "30")
            try await eventually(timeout: .seconds(15), "reachd was activated for the wait") {
                try await world.session.processID(of: ReachdProcess.busName) != nil
            }
            let first = try #require(try await world.session.processID(of: ReachdProcess.busName))
            kill(first, SIGKILL)
            try await eventually(timeout: .seconds(15), "the wait's client activated a new reachd") {
                guard let pid = try await world.session.processID(of: ReachdProcess.busName) else { return false }
                return pid != first
            }
            #expect(!wait.hasExited, "still waiting: \(wait.output)")
            try await world.networkManager.setState(70, emittingStateChanged: false)
            #expect(try await wait.child.exit(timeout: .seconds(15)) == 0, "\(wait.output)")
            if let pid = try await world.session.processID(of: ReachdProcess.busName) { kill(pid, SIGTERM) }
        }
    }

    @Test("--stable: a flap shorter than the stable time does not end the wait")
    func stableFiltersAFlap() async throws {
        try await withWorld { world in
            try await world.networkManager.setState(20, emittingStateChanged: false)
            try await world.waitForServiceStatus(.notReachable)
            let wait = try world.backgroundReachctl("wait", "--stable", "2", "--timeout", "30")
            try await world.networkManager.setState(70, emittingStateChanged: false)
            try await world.networkManager.setState(20, emittingStateChanged: false)
            try await Task.sleep(for: .seconds(3))
            #expect(!wait.hasExited, "a flap is not stable: \(wait.output)")
            try await world.networkManager.setState(70, emittingStateChanged: false)
            #expect(try await wait.child.exit(timeout: .seconds(15)) == 0, "\(wait.output)")
        }
    }

    @Test("-i: an interface that carries the path is routable; an absent one is waited for; --any needs one of them")
    func interfaceConditions() async throws {
        try await withWorld { world in
            try await world.waitForServiceStatus(.reachableViaWiFi)
            // reachd's namespace: rv0 carries the kernel's path; its peer rv1 is a host-side veth.
            #expect(try await world.reachctl("wait", "-i", "rv0", "--timeout", "0").status == 0)
            #expect(try await world.reachctl("wait", "-i", "rv0:link", "--timeout", "0").status == 0)
            let absent = try await world.reachctl("wait", "-i", "nosuch0", "--timeout", "1")
            #expect(absent.status == 1, "\(absent.transcript)")
            #expect(absent.standardError.contains("interface nosuch0 is not present"), "\(absent.transcript)")
            #expect(try await world.reachctl("wait", "-i", "rv1", "--timeout", "0").status == 1,
                    "a host-side veth is no interface a path is known by")
            #expect(try await world.reachctl("wait", "--any", "-i", "nosuch0", "-i", "rv0", "--timeout", "0").status == 0)
            #expect(try await world.reachctl("wait", "-i", "nosuch0", "-i", "rv0", "--timeout", "0").status == 1)
            #expect(try await world.reachctl("wait", "--level", "link", "--ignore", "rv*", "--timeout", "0").status == 1,
                    "with its only link ignored, nothing counts for link")
            #expect(try await world.reachctl("wait", "-i", "rv0:online", "--timeout", "30").status == 5,
                    "online on an interface needs a connectivity check too")
        }
    }

    @Test("--host NAME:PORT: 0 once a TCP connection to a listening port succeeds; 1 after the timeout for a closed one")
    func hostWithAPortNeedsAHandshake() async throws {
        // A listener on loopback, and a port number that was free a moment ago (nothing listens).
        let listener = try ChildProcess("/usr/bin/python3", ["-c", """
            import socket, time
            listening = socket.socket(); listening.bind(('127.0.0.1', 0)); listening.listen(8)
            closed = socket.socket(); closed.bind(('127.0.0.1', 0)); free = closed.getsockname()[1]; closed.close()
            print(listening.getsockname()[1], free, flush=True)
            time.sleep(120)
            """], unsetting: ["PYTHONPATH", "PYTHONHOME"])
        defer { listener.stop(SIGKILL) }
        try await eventually(timeout: .seconds(10), "the listener is up") { listener.standardOutput.contains("\n") }
        let ports = listener.standardOutput.split(whereSeparator: \.isWhitespace).map(String.init)
        try await withWorld { world in
            try await world.waitForServiceStatus(.reachableViaWiFi)
            let open = try await world.reachctl("wait", "--host", "127.0.0.1:\(ports[0])", "--timeout", "10")
            #expect(open.status == 0, "\(open.transcript)")
            let closed = try await world.reachctl("wait", "--host", "127.0.0.1:\(ports[1])", "--timeout", "2")
            #expect(closed.status == 1, "\(closed.transcript)")
            #expect(closed.standardError.contains("no TCP connection to 127.0.0.1:\(ports[1])"), "\(closed.transcript)")
            // Several hosts: all by default, one with --any.
            let both = try await world.reachctl("wait", "--host", "127.0.0.1:\(ports[0])", "--host", "127.0.0.1:\(ports[1])",
                                                "--timeout", "2")
            #expect(both.status == 1, "\(both.transcript)")
            let either = try await world.reachctl("wait", "--any", "--host", "127.0.0.1:\(ports[0])",
                                                  "--host", "127.0.0.1:\(ports[1])", "--timeout", "10")
            #expect(either.status == 0, "\(either.transcript)")
        }
    }

    @Test("behind a captive portal: link holds, routable never does, and the reason says portal")
    func portalNeverSatisfiesRoutable() async throws {
        try await withWorld { world in
            try await world.networkManager.setManager("Connectivity", "u", "2")
            try await world.waitForServiceStatus(.notReachable)
            #expect(try await world.reachctl("wait", "--level", "link", "--timeout", "0").status == 0)
            let routable = try await world.reachctl("wait", "--level", "routable", "--timeout", "1")
            #expect(routable.status == 1, "\(routable.transcript)")
            #expect(routable.standardError.contains("(portal"), "\(routable.transcript)")
        }
    }

    @Test("GetPath carries exactly the properties GetAll does, in one round trip")
    func getPathKeysAreGetAllKeys() async throws {
        try await withWorld { world in
            try await world.waitForServiceStatus(.reachableViaWiFi)
            func keys(_ result: ToolResult) -> Set<String> {
                // busctl --json=short: {"type":"a{sv}","data":[{"Status":{…},…}]}
                let object = try? JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
                let dictionary = (object?["data"] as? [Any])?.first as? [String: Any]
                return Set(dictionary?.keys.map { $0 } ?? [])
            }
            let getAll = try await world.session.busctl(
                "--json=short", "call", "io.reachd.Reachability1", "/io/reachd/Reachability1",
                "org.freedesktop.DBus.Properties", "GetAll", "s", "io.reachd.Reachability1")
            let getPath = try await world.session.busctl(
                "--json=short", "call", "io.reachd.Reachability1", "/io/reachd/Reachability1",
                "io.reachd.Reachability1", "GetPath")
            #expect(getAll.succeeded && getPath.succeeded, "\(getAll.transcript)\n\(getPath.transcript)")
            #expect(keys(getPath).contains("Level") && keys(getPath).contains("AvailableInterfaces"))
            #expect(keys(getPath) == keys(getAll), "GetPath: \(keys(getPath).sorted())\nGetAll: \(keys(getAll).sorted())")
        }
    }

    @Test("contradictions are usage errors (64)", arguments: [
        ["wait", "--level", "link", "-4"],
        ["wait", "--level", "loud"],
        ["wait", "--timeout", "-1"],
        ["wait", "--timeout", "soon"],
        ["wait", "--host", "example.org", "-6"],
        ["wait", "--any", "-i", "eth0"],
        ["wait", "-i", "eth0", "--ignore", "eth*"],
        ["wait", "-i", "eth0:dns"],
        ["wait", "--any", "--host", "example.org"],
        ["wait", "--host", "example.org:0"],
        ["wait", "--host", "example.org:http"],
    ])
    func contradictionsExit64(arguments: [String]) async throws {
        let result = try await runTool(Executables.reachctl, arguments)
        #expect(result.status == 64, "\(result.transcript)")
    }

    @Test("a duration beyond a year, NaN, or infinite where no limit is meant is refused with the range (64), never a crash",
          arguments: [
            ("--timeout", "1e19"), ("--timeout", "99999999999999999999"), ("--timeout", "1e300"), ("--timeout", "1e400"),
            ("--timeout", "nan"), ("--timeout", "-inf"), ("--timeout", "31536000.001"), ("--timeout", "-0.5"),
            ("--stable", "1e20"), ("--stable", "inf"), ("--stable", "nan"), ("--stable", "9223372036854775807"),
          ])
    func durationsOutOfRangeExit64(option: String, value: String) async throws {
        let result = try await runTool(Executables.reachctl, ["wait", option, value])
        #expect(result.status == 64, "\(result.transcript)")
        #expect(result.standardError.contains("\(option) must be from 0 to 31536000 seconds (a year; decimals allowed)"),
                "\(result.transcript)")
        #expect(result.standardError.contains("got \(value)"), "\(result.transcript)")
    }

    @Test("a year is taken: --timeout 31536000 returns at once when the level holds; --stable 31536000 beyond the timeout is refused")
    func aYearIsTaken() async throws {
        try await withWorld { world in
            try await world.waitForServiceStatus(.reachableViaWiFi)
            let once = try await world.reachctl("wait", "--level", "routable", "--timeout", "31536000")
            #expect(once.status == 0, "\(once.transcript)")
            // A year's --stable is read as a year, and one longer than the timeout could never hold:
            // a usage error at once, not a wait that cannot succeed.
            let held = try await world.reachctl("wait", "--level", "routable", "--stable", "31536000", "--timeout", "3")
            #expect(held.status == 64, "\(held.transcript)")
            #expect(held.standardError.contains("--stable 31536000 is longer than --timeout 3"), "\(held.transcript)")
        }
    }
}
