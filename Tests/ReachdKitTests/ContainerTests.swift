import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// reachctl and the library where no reachd shares the caller's network namespace (contract 4,
/// §2 and §3): in a container with no bus at all, and in one that reaches the user's session bus
/// through its path socket. They answer from reachd's engine run in their own process, for the
/// container's network: never Unknown for want of a bus, never the host's answer.
@Suite("In a container: the answer for its own network, computed in-process", .timeLimit(.minutes(3)))
struct ContainerTests {
    /// The JSON object `reachctl status --json` printed, as text fields.
    static func fields(_ json: String) -> [String: String] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return [:] }
        return object.mapValues { "\($0)" }
    }

    @Test("with no bus at all: status, path, host and wait answer from this process, for the container's own link")
    func everyCommandWorksWithoutABus() async throws {
        try await withContainer { container in
            let status = try await container.run(Executables.reachctl, ["status", "--json"])
            #expect(status.status == 0, "\(status.transcript)")
            let report = Self.fields(status.standardOutput)
            #expect(report["service"] == "in-process" && report["interface"] == container.interface && report["status"] == "2",
                    "\(status.transcript)")
            let text = try await container.run(Executables.reachctl, ["status"], environment: ["LANG": "C"])
            #expect(text.standardOutput.contains("answered by:  in this process: no reachd on the session or system bus shares this network namespace"),
                    "\(text.transcript)")
            let path = try await container.run(Executables.reachctl, ["path"])
            #expect(path.standardOutput.hasPrefix("satisfied"), "\(path.transcript)")
            #expect(path.standardOutput.contains("gateways:     \(container.gateway)"), "\(path.transcript)")
            #expect(path.standardOutput.contains("answered by:  in this process"), "\(path.transcript)")
            let pathJSON = try await container.run(Executables.reachctl, ["path", "--json"])
            #expect(pathJSON.standardOutput.contains("\"service\":\"in-process\""), "\(pathJSON.transcript)")
            let host = try await container.run(Executables.reachctl, ["host", container.gateway])
            #expect(host.status == 0 && host.standardOutput.contains("Reachable|IsDirect  answered by: in this process"), "\(host.transcript)")
            let wait = try await container.run(Executables.reachctl, ["wait", "--level", "routable", "--timeout", "5", "--json"])
            #expect(wait.status == 0 && wait.standardOutput.contains("\"service\":\"in-process\""), "\(wait.transcript)")

            try await container.deleteDefaultRoute()
            let down = try await container.run(Executables.reachctl, ["status", "--json"])
            #expect(Self.fields(down.standardOutput)["unsatisfiedReason"] == "no-route", "\(down.transcript)")
            let unreachable = try await container.run(Executables.reachctl, ["host", "198.51.100.1"])
            #expect(unreachable.status == 1, "not reachable, not 'reachd unavailable': \(unreachable.transcript)")
            // A timeout is 1, as anywhere; 3 (reachd unavailable) would say the tool could not tell.
            let timedOut = try await container.run(Executables.reachctl, ["wait", "--level", "routable", "--timeout", "1"])
            #expect(timedOut.status == 1, "\(timedOut.transcript)")
        }
    }

    @Test("with REACHD_CONNECTIVITY_URI, wait --level online waits for the in-process check's first verdict, as watch shows it")
    func waitOnlineWaitsForTheInProcessCheck() async throws {
        try await withContainer { container in
            let (server, uri) = try await container.serveConnectivityCheck()
            defer { server.stop(SIGKILL); server.removeOutput() }
            let check = ["REACHD_CONNECTIVITY_URI": uri]
            // Before the fix: exit 5 within milliseconds, "none runs here", while the check was on its way.
            let wait = try await container.run(Executables.reachctl, ["wait", "--level", "online", "--timeout", "10"], environment: check)
            #expect(wait.status == 0, "\(wait.transcript)")
            let json = try await container.run(Executables.reachctl, ["wait", "--level", "online", "--timeout", "10", "--json"], environment: check)
            #expect(json.status == 0 && json.standardOutput.contains("\"level\":\"online\""), "\(json.transcript)")
            // Without the variable no check runs here, but a system bus may still come (a boot before
            // its daemon looks the same): it waits, and says what for; never 5.
            let none = try await container.run(Executables.reachctl, ["wait", "--level", "online", "--timeout", "2"])
            #expect(none.status == 1, "\(none.transcript)")
            #expect(none.standardError.contains("waiting for the system bus (nothing at /run/dbus/system_bus_socket yet)"),
                    "\(none.transcript)")
        }
    }

    @Test("wait's reasons are the real ones: a bad REACHD_CONNECTIVITY_URI, a hold shorter than --stable, an interface up but not counted")
    func waitSaysTheRealReason() async throws {
        try await withContainer { container in
            // The URI, not "no session bus": the engine here is what refused.
            let garbage = try await container.run(Executables.reachctl, ["wait", "--timeout", "1"], environment: ["REACHD_CONNECTIVITY_URI": "garbage"])
            #expect(garbage.status == 3, "\(garbage.transcript)")
            #expect(garbage.standardError.contains("connectivity check URI \"garbage\"") && !garbage.standardError.contains("session bus"),
                    "\(garbage.transcript)")
            // A hold longer than the timeout can never be met: a usage error, not a quiet 0.
            let impossible = try await container.run(Executables.reachctl, ["wait", "--stable", "5", "--timeout", "0"])
            #expect(impossible.status == 64 && impossible.standardError.contains("--stable 5 is longer than --timeout 0"), "\(impossible.transcript)")

            // The route comes back 1.5 s into a 3 s wait for 2 s of stability: it held, but not long enough.
            try await container.deleteDefaultRoute()
            let stable = try container.process(Executables.reachctl, ["wait", "--stable", "2", "--timeout", "3"])
            defer { stable.stop(SIGKILL); stable.removeOutput() }
            try await Task.sleep(for: .milliseconds(1500))
            try await container.restoreDefaultRoute()
            let status = try await stable.exit(timeout: .seconds(20))
            #expect(status == 1, "\(stable.standardError)")
            // How long it held depends on how soon reachctl started on a busy machine: not asked.
            #expect(stable.standardError.contains("timed out after 3 s: the condition held for only ")
                    && stable.standardError.contains(" s of --stable 2 s"), "not 'level routable not reached': \(stable.standardError)")

            // A veth that is up but carries no route: not "not present (or down)".
            for step in [["-n", container.name, "link", "add", "vec1", "type", "veth", "peer", "name", "vp1", "netns", container.peer],
                         ["-n", container.peer, "link", "set", "vp1", "up"], ["-n", container.name, "link", "set", "vec1", "up"]] {
                try await runToolChecked("/usr/sbin/ip", step)
            }
            let up = try await container.run(Executables.reachctl, ["wait", "-i", "vec1:link", "--timeout", "0"])
            #expect(up.status == 1 && up.standardError.contains("interface vec1 is up, but reachd does not count it as a way out"),
                    "\(up.transcript)")
            try await runToolChecked("/usr/sbin/ip", ["-n", container.name, "link", "set", "vec1", "down"])
            let down = try await container.run(Executables.reachctl, ["wait", "-i", "vec1:link", "--timeout", "0"])
            #expect(down.standardError.contains("interface vec1 is down"), "\(down.transcript)")
            let absent = try await container.run(Executables.reachctl, ["wait", "-i", "vec9:link", "--timeout", "0"])
            #expect(absent.standardError.contains("interface vec9 is not present"), "\(absent.transcript)")
        }
    }

    @Test("a second uplink with a default route of its own is listed with a path to the Internet, after the deciding one")
    func everyUplinkWithItsOwnDefaultRouteIsListed() async throws {
        try await withContainer { container in
            try await Self.addSecondUplink(to: container)
            let path = try await container.run(Executables.reachctl, ["path", "--json"])
            // Before: eth8 was listed without a path to the Internet (the deciding route's link only).
            #expect(path.standardOutput.contains(#""availableInterfaces":[{"hasInternetPath":true,"name":"eth7","type":"ethernet"},{"hasInternetPath":true,"name":"eth8","type":"ethernet"}]"#),
                    "\(path.transcript)")
            // The deciding one's route goes: eth8 decides; eth7, a veth with no route of its own, is
            // no uplink any more (as a host's docker veths are none).
            try await container.deleteDefaultRoute()
            let after = try await container.run(Executables.reachctl, ["path", "--json"])
            #expect(after.standardOutput.contains(#""availableInterfaces":[{"hasInternetPath":true,"name":"eth8","type":"ethernet"}]"#),
                    "\(after.transcript)")
        }
    }

    @Test("a scheduled SCNetworkReachability target calls back when the path moves to another interface with the same flags, as configd's does")
    func callbackWhenTheInterfaceChanges() async throws {
        try await withContainer { container in
            try await Self.addSecondUplink(to: container)
            // UnheldTarget.swift: a 0.0.0.0 target on the main queue, a line per callback.
            let app = try container.process(Executables.appleSystemConfiguration, ["unheld"])
            defer { app.stop(); app.removeOutput() }
            let callbacks = { app.standardOutput.split(separator: "\n").filter { $0.hasPrefix("unheld flags=") }.map { $0.split(separator: " ")[1] } }
            try await eventually(timeout: .seconds(20), "the first answer: \(app.standardOutput)\(app.standardError)") {
                app.standardOutput.contains("unheld-answered flags=0x2\n")
            }
            try await Task.sleep(for: .milliseconds(500))
            // eth7's default route goes: the path is eth8's, Reachable as before.
            try await container.deleteDefaultRoute()
            try await eventually(timeout: .seconds(20), "a callback for the move to eth8: \(app.standardOutput)\(app.standardError)") { callbacks().count == 1 }
            #expect(callbacks() == ["flags=0x2"], "the same flags, over another interface (none on scheduling): \(app.standardOutput)")
        }
    }

    /// eth8 beside eth7: its own gateway, its own default route with a higher metric.
    static func addSecondUplink(to container: Container) async throws {
        for step in [["-n", container.name, "link", "add", "eth8", "type", "veth", "peer", "name", "p8", "netns", container.peer],
                     ["-n", container.peer, "address", "add", "10.76.9.1/24", "dev", "p8"],
                     ["-n", container.peer, "link", "set", "p8", "up"],
                     ["-n", container.name, "address", "add", "10.76.9.2/24", "dev", "eth8"],
                     ["-n", container.name, "link", "set", "eth8", "up"],
                     ["-n", container.name, "route", "add", "default", "via", "10.76.9.1", "metric", "200"]] {
            try await runToolChecked("/usr/sbin/ip", step)
        }
    }

    @Test("reachctl watch into a pipe: each line is there as it happens, before a SIGTERM (docker stop), not when a buffer fills")
    func watchIntoAPipeLosesNothing() async throws {
        try await withContainer { container in
            // Python reads reachctl's standard output through a pipe, as a log collector does.
            let reader = """
                import select, signal, subprocess, sys
                child = subprocess.Popen([sys.argv[1], "watch", "--json"], stdout=subprocess.PIPE)
                ready, _, _ = select.select([child.stdout], [], [], 20)
                line = child.stdout.readline() if ready else b""
                child.send_signal(signal.SIGTERM)
                child.stdout.read()
                child.wait()
                print("first=" + line.decode().strip())
                """
            let result = try await container.run("/usr/bin/python3", ["-c", reader, Executables.reachctl])
            #expect(result.standardOutput.hasPrefix("first={") && result.standardOutput.contains("\"service\":\"in-process\""),
                    "\(result.transcript)")
        }
    }

    @Test("the engine in-process, started and stopped 30 times in one program, leaves no descriptor behind")
    func inProcessEngineLeavesNothingBehind() async throws {
        try await withContainer { container in
            let result = try await container.run(Executables.reachabilityUpdates, ["--fetch", "30", "--host", container.gateway])
            let words = result.standardOutput.split(separator: " ").compactMap { $0.split(separator: "=").last.flatMap { Int($0.filter(\.isNumber)) } }
            #expect(result.status == 0 && words.count == 2, "\(result.transcript)")
            #expect(words.count == 2 && words[1] <= words[0], "descriptors after the first and the last question: \(result.standardOutput)")
            let defaultRoute = try await container.run(Executables.reachabilityUpdates, ["--fetch", "30"])
            let counts = defaultRoute.standardOutput.split(separator: " ").compactMap { $0.split(separator: "=").last.flatMap { Int($0.filter(\.isNumber)) } }
            #expect(counts.count == 2 && counts[1] <= counts[0], "\(defaultRoute.transcript)")
        }
    }

    @Test("reachctl watch and a program embedding the library follow the default route going and coming back, within a second each")
    func watchersFollowTheContainersRoute() async throws {
        try await withContainer { container in
            let watch = try container.process(Executables.reachctl, ["watch"], environment: ["LANG": "C"])
            let app = try container.process(Executables.reachabilityUpdates, [])
            defer {
                watch.stop(SIGKILL); watch.removeOutput()
                app.stop(SIGKILL); app.removeOutput()
            }
            func lines(_ child: ChildProcess) -> [String] { child.standardOutput.split(separator: "\n").map(String.init) }
            try await eventually(timeout: .seconds(20), "both answer from this process:\n\(watch.standardOutput)\n\(app.standardOutput)") {
                lines(watch).last?.hasPrefix("Reachable via WiFi") == true
                    // The fixture's error= lines come from another stream, in either order with the first update.
                    && lines(app).last { !$0.hasPrefix("error=") } == "service=in-process status=2 interface=eth7 reason= level=dns"
            }
            let events = try await KernelRouteEvents(namespace: container.name)
            let watchStamps = try OutputStamps(following: watch.outputPath), appStamps = try OutputStamps(following: app.outputPath)
            defer { events.stop(); watchStamps.stop(); appStamps.stop() }
            var took: [Duration] = [], toolTook: [Duration] = []
            for (change, expected, line) in [
                ("route deleted", "Not Reachable", "service=in-process status=0 interface= reason=no-route level=none"),
                ("route restored", "Reachable via WiFi", "service=in-process status=2 interface=eth7 reason= level=dns"),
                ("route deleted again", "Not Reachable", "service=in-process status=0 interface= reason=no-route level=none"),
            ] {
                let watchLines = lines(watch).count, appLines = lines(app).count
                let eventsBefore = events.count, watchBefore = watchStamps.count, appBefore = appStamps.count
                let start = Date()
                if expected == "Not Reachable" { try await container.deleteDefaultRoute() } else { try await container.restoreDefaultRoute() }
                try await eventually(timeout: .seconds(10), pollingEvery: .milliseconds(5), "\(change): both follow\n\(watch.standardOutput)\n\(app.standardOutput)") {
                    lines(watch).dropFirst(watchLines).contains { $0.hasPrefix(expected) } && lines(app).dropFirst(appLines).contains(line)
                }
                // From the kernel's event to both lines landing in their files, as processes of their
                // own stamp them: the engine and the print, not ip's start nor this test's polling.
                let event = try await events.waitForTime(after: eventsBefore, matching: expected == "Not Reachable" ? "Deleted default" : "default via")
                let watchPrinted = try await watchStamps.waitForStamp(after: watchBefore, "from watch: \(expected)") { $0.hasPrefix(expected) }
                let appPrinted = try await appStamps.waitForStamp(after: appBefore, "from the program: \(line)") { $0 == line }
                took.append(.seconds(max(watchPrinted, appPrinted).timeIntervalSince(event)))
                toolTook.append(.seconds(event.timeIntervalSince(start)))
            }
            // The median, so one change that waited for a busy CPU does not decide it.
            #expect(took.sorted()[1] < .seconds(1), "watch and the library printed within \(took) of the kernel's event (ip took \(toolTook) to make it)")
        }
    }

    @Test("a reachd on a session bus the container reaches by its path socket answers for another namespace: never used")
    func anotherNamespacesReachdIsNeverUsed() async throws {
        try await withWorld { world in
            try await withContainer { container in
                // The container has lost its default route; the host's reachd (the tests' namespace) is Reachable.
                try await container.deleteDefaultRoute()
                try await world.waitForServiceStatus(.reachableViaWiFi)
                let bus = ["DBUS_SESSION_BUS_ADDRESS": world.session.address]
                let status = try await container.run(Executables.reachctl, ["status", "--json"], environment: bus)
                let report = Self.fields(status.standardOutput)
                #expect(report["service"] == "in-process" && report["status"] == "0" && report["unsatisfiedReason"] == "no-route",
                        "the container's answer, not the host's: \(status.transcript)")
                let host = try await container.run(Executables.reachctl, ["host", "198.51.100.1"], environment: bus)
                #expect(host.status == 1, "\(host.transcript)")
                // Chosen explicitly, the host's reachd is an error that says why, never its answer.
                let chosen = try await container.run(Executables.reachctl, ["status", "--service", "session"], environment: bus)
                #expect(chosen.status == 3, "\(chosen.transcript)")
                #expect(chosen.standardError.contains("answers for network namespace net:["), "\(chosen.transcript)")
                #expect(chosen.standardError.contains("(io.reachd.Error.OtherNetworkNamespace)"), "\(chosen.transcript)")

                let app = try container.process(Executables.reachabilityUpdates, [], environment: bus)
                defer { app.stop(SIGKILL); app.removeOutput() }
                try await eventually(timeout: .seconds(20), "the library answers for the container:\n\(app.standardOutput)") {
                    app.standardOutput.contains("service=in-process status=0 interface= reason=no-route level=none")
                }
                #expect(!app.standardOutput.contains("service=session"), "\(app.standardOutput)")
            }
        }
    }
}
