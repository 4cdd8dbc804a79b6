import Foundation
import Glibc
import ReachdKit
import ReachdTestSupport
import Testing

/// The client follows the service's presence by itself: activation, absence, restarts, replacement.
@Suite("Following reachd on the bus", .timeLimit(.minutes(2)))
struct ServiceAvailabilityTests {
    @Test("reachd killed and restarted mid-watch: Unknown meanwhile, then the client reads the new instance")
    func clientRecoversWhenServiceRestarts() async throws {
        try await withWorld { world in
            let manager = world.manager()
            let seen = Recorder<NetworkReachabilityStatus>()
            let streamed = Recorder<NetworkReachabilityStatus>()
            manager.setReachabilityStatusChangeHandler { seen.append($0) }
            let consumer = Task { for await update in manager.updates { streamed.append(update.status) } }
            defer { consumer.cancel() }
            manager.startMonitoring()
            defer { manager.stopMonitoring() }
            try await seen.waitUntil([.reachableViaWiFi])

            world.service?.stop(SIGKILL)
            try await seen.waitUntil([.reachableViaWiFi, .unknown])
            #expect(manager.flags == [])

            try await world.networkManager.setState(20, emittingStateChanged: false)
            try await world.startService()
            try await seen.waitUntil([.reachableViaWiFi, .unknown, .notReachable])
            // Changes of the new instance arrive too: its signals are followed, not the old one's.
            try await world.networkManager.setState(70, emittingStateChanged: false)
            try await seen.waitUntil([.reachableViaWiFi, .unknown, .notReachable, .reachableViaWiFi])
            try await streamed.waitUntil([.reachableViaWiFi, .unknown, .notReachable, .reachableViaWiFi])
        }
    }

    @Test("reachd --replace taking the name over: the client follows the new owner without a gap")
    func clientFollowsReplacement() async throws {
        try await withWorld { world in
            let manager = world.manager()
            let seen = Recorder<NetworkReachabilityStatus>()
            manager.setReachabilityStatusChangeHandler { seen.append($0) }
            manager.startMonitoring()
            defer { manager.stopMonitoring() }
            try await seen.waitUntil([.reachableViaWiFi])
            let first = try #require(world.service)
            try await world.startService(arguments: ["--replace"])
            try await eventually(timeout: .seconds(15), "the replaced reachd exits") { first.exitStatus != nil }
            #expect(first.exitStatus == 0)
            try await world.networkManager.setState(20, emittingStateChanged: false)
            try await seen.waitUntil([.reachableViaWiFi, .notReachable])
        }
    }

    @Test("no service and no activation: Unknown with the reason, then reachd starting is picked up")
    func unknownUntilServiceAppears() async throws {
        try await withWorld(.absent) { world in
            let manager = world.manager()
            let seen = Recorder<NetworkReachabilityStatus>()
            manager.setReachabilityStatusChangeHandler { seen.append($0) }
            manager.startMonitoring()
            defer { manager.stopMonitoring() }
            try await seen.waitUntil([.unknown])
            #expect(manager.networkReachabilityStatus == .unknown)
            #expect(manager.lastError?.name == ReachabilityError.serviceUnknown)

            try await world.startService()
            try await seen.waitUntil([.unknown, .reachableViaWiFi])
            #expect(manager.lastError == nil)
        }
    }

    @Test("reachd installed for D-Bus activation: startMonitoring starts it, and starts it again when it exits")
    func activationStartsTheServiceAgainAndAgain() async throws {
        try await withWorld(.activatable) { world in
            let manager = world.manager()
            let seen = Recorder<NetworkReachabilityStatus>()
            manager.setReachabilityStatusChangeHandler { seen.append($0) }
            manager.startMonitoring()
            try await seen.waitUntil([.reachableViaWiFi])
            let first = try #require(try await world.session.processID(of: ReachdProcess.busName))
            kill(first, SIGTERM)
            // Unknown while it is gone, then the instance the client's request activated.
            try await seen.waitUntil([.reachableViaWiFi, .unknown, .reachableViaWiFi])
            let second = try #require(try await world.session.processID(of: ReachdProcess.busName))
            #expect(second != first)
            // A change in the new instance reaches the same handler: the watch goes on.
            try await world.networkManager.setState(20, emittingStateChanged: false)
            try await seen.waitUntil([.reachableViaWiFi, .unknown, .reachableViaWiFi, .notReachable])
            manager.stopMonitoring()
            // The activated reachd is the bus's child, not ours: stop it before the bus goes.
            kill(second, SIGTERM)
        }
    }

    @Test("reachctl watch goes on across a reachd restart by activation, without being restarted")
    func reachctlWatchFollowsAReactivatedService() async throws {
        try await withWorld(.activatable) { world in
            // The session's reachd chosen: across its restart it says Unknown, as a chosen provider does.
            let watch = try world.backgroundReachctl("watch", "--service", "session", environment: ["LANG": "C"])
            defer { watch.stop() }
            try await watch.waitForOutput(containing: "Reachable via WiFi")
            let first = try #require(try await world.session.processID(of: ReachdProcess.busName))
            try await world.networkManager.setState(20, emittingStateChanged: false)
            try await watch.waitForOutput(containing: "Not Reachable")
            kill(first, SIGKILL)
            try await world.networkManager.setState(70, emittingStateChanged: false)
            try await eventually(timeout: .seconds(15), "watch shows the re-activated reachd's state:\n\(watch.output)") {
                let lines = watch.lines
                guard let gone = lines.lastIndex(where: { $0.contains("Unknown") }) else { return false }
                return lines[gone...].contains { $0.contains("Reachable via WiFi") }
            }
            #expect(!watch.hasExited)
            if let pid = try await world.session.processID(of: ReachdProcess.busName) { kill(pid, SIGTERM) }
        }
    }

    @Test("reachctl watch says on stderr why it waits — no session bus, then reachd not installed — once each, and keeps waiting until reachd is there")
    func reachctlWatchSaysWhatItWaitsFor() async throws {
        try await withWorld(.absent) { world in
            // No DBUS_SESSION_BUS_ADDRESS, and an XDG_RUNTIME_DIR without a bus socket (yet).
            let runtime = FileManager.default.temporaryDirectory.appendingPathComponent("reachctl-watch-\(UUID().uuidString.prefix(8))").path
            try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: runtime) }
            // The session's reachd chosen: without it, watch waits and says why.
            let watch = try ChildProcess(Executables.reachctl, ["watch", "--service", "session"],
                                         environment: ["XDG_RUNTIME_DIR": runtime, "LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8"],
                                         unsetting: ["DBUS_SESSION_BUS_ADDRESS"])
            defer {
                watch.stop(SIGKILL)
                watch.removeOutput()
            }
            func said(_ text: String) -> Int { watch.standardError.components(separatedBy: text).count - 1 }

            let noBus = "no session bus: DBUS_SESSION_BUS_ADDRESS is not set, and there is no \(runtime)/bus ($XDG_RUNTIME_DIR/bus)"
            try await eventually(timeout: .seconds(15), "watch says there is no session bus:\n\(watch.standardError)") { said(noBus) == 1 }
            #expect(watch.standardError.contains("dbus-run-session"), "what would give it one: \(watch.standardError)")
            // Its first line goes to standard output, the reason to standard error: two pipes, read
            // by this test in no set order (CI once read the reason first, by a moment).
            try await eventually(timeout: .seconds(15), "watch prints Unknown meanwhile: \(watch.standardOutput)") {
                watch.standardOutput.hasPrefix("Unknown")
            }
            // The library tries again at 250 ms, 500 ms, 1 s: the reason is said once, not on each try.
            try await Task.sleep(for: .seconds(2))
            #expect(said(noBus) == 1, "\(watch.standardError)")
            #expect(watch.poll() == nil, "watch keeps waiting: \(watch.standardError)")

            // A session bus appears where the library looks; reachd has no activation file on it.
            #expect(symlink(world.session.directory.appendingPathComponent("bus").path, runtime + "/bus") == 0)
            try await eventually(timeout: .seconds(20), "watch says reachd is not installed:\n\(watch.standardError)") {
                said("(org.freedesktop.DBus.Error.ServiceUnknown); waiting for reachd") == 1
            }
            for fix in ["reachd is not running, and this session bus cannot start it: it is not installed for D-Bus activation",
                        "Scripts/install", "sudo apt install ./reachd_*.deb", "'reachd &'"] {
                #expect(watch.standardError.contains(fix), "\(fix): \(watch.standardError)")
            }
            try await Task.sleep(for: .seconds(2))
            #expect(said("ServiceUnknown") == 1, "said once, though activation is retried: \(watch.standardError)")
            #expect(watch.poll() == nil, "watch keeps waiting: \(watch.standardError)")

            try await world.startService()
            try await eventually(timeout: .seconds(15), "watch follows reachd once it is there:\n\(watch.standardOutput)\(watch.standardError)") {
                watch.standardOutput.contains("Reachable via WiFi") && said("connected to reachd") == 1
            }
            #expect(watch.standardError.split(separator: "\n").count == 3, "one line per reason and one on arrival: \(watch.standardError)")
            #expect(watch.poll() == nil)
        }
    }

    @Test("a reachd that refuses its configuration under activation: watch names the file and the commands, stops re-activating after four, and picks up a reachd started by hand")
    func refusedConfigurationIsNotReactivatedForever() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-refusal-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder + "/reachd", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let configuration = folder + "/reachd/reachd.conf", spawns = folder + "/spawns"
        try "[reachd]\nsettle-ms=soon\n".write(toFile: configuration, atomically: true, encoding: .utf8)
        // Each activation leaves a line, then becomes a reachd that exits 64 on the file.
        let session = try PrivateBus(.session, activationFiles: ["io.reachd.Reachability1.service": """
            [D-BUS Service]
            Name=io.reachd.Reachability1
            Exec=/bin/sh -c 'echo spawned >> \(spawns); exec \(Executables.reachd) --config \(configuration)'
            """])
        defer { session.stop() }
        func spawned() -> Int {
            ((try? String(contentsOfFile: spawns, encoding: .utf8)) ?? "").split(separator: "\n").count
        }
        // The session's reachd chosen: choosing by itself, reachctl would answer from elsewhere.
        let watch = try ChildProcess(Executables.reachctl, ["watch", "--service", "session"],
                                     environment: ["DBUS_SESSION_BUS_ADDRESS": session.address, "XDG_CONFIG_HOME": folder,
                                                   "LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8"])
        defer {
            watch.stop(SIGKILL)
            watch.removeOutput()
        }
        try await eventually(timeout: .seconds(20), "watch says it stopped asking:\n\(watch.standardError)") {
            watch.standardError.contains("(4 times in a row; not started again until it appears on the bus)")
        }
        #expect(spawned() == 4, "\(spawned()) activations")
        // The session instance's own log: its unit's journal under systemd, else the bus's standard error.
        let log = access("/run/systemd/system", F_OK) == 0 ? "'journalctl --user -u reachd'" : "the session bus's standard error"
        for words in ["reachd did not start: Process io.reachd.Reachability1 exited with status 64",
                      "'reachd --check-config' lists every problem of \(configuration)", log,
                      "(org.freedesktop.DBus.Error.Spawn.ChildExited); waiting for reachd"] {
            #expect(watch.standardError.contains(words), "\(words): \(watch.standardError)")
        }
        #expect(!watch.standardError.contains("Usage"), "\(watch.standardError)")
        // The old watcher asked again 2, then 4 s after the fourth: in 3 s none comes now.
        try await Task.sleep(for: .seconds(3))
        #expect(spawned() == 4, "no activation after giving up: \(spawned())")
        #expect(watch.poll() == nil, "watch keeps waiting: \(watch.standardError)")

        // The name appears by other means: a reachd started by hand, with no file.
        let reachd = try ChildProcess(Executables.reachd, ["--no-config", "--system-bus-address", absentSystemBusAddress()],
                                      environment: ["DBUS_SESSION_BUS_ADDRESS": session.address])
        defer {
            reachd.stop(SIGKILL)
            reachd.removeOutput()
        }
        try await eventually(timeout: .seconds(15), "watch follows the reachd started by hand:\n\(watch.standardOutput)\(watch.standardError)") {
            watch.standardError.contains("connected to reachd") && watch.standardOutput.split(separator: "\n").count >= 2
        }
        #expect(spawned() == 4)
    }

    @Test("choosing by itself, a reachd installed on the session bus that does not start is passed over in one stderr line (which, why, its log), and the answer still comes")
    func installedReachdThatFailsIsPassedOverAloud() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-passed-over-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder + "/reachd", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let configuration = folder + "/reachd/reachd.conf"
        try "[reachd]\nsettle-ms=soon\n".write(toFile: configuration, atomically: true, encoding: .utf8)
        let session = try PrivateBus(.session, activationFiles: ["io.reachd.Reachability1.service": """
            [D-BUS Service]
            Name=io.reachd.Reachability1
            Exec=\(Executables.reachd) --config \(configuration)
            """])
        defer { session.stop() }
        let environment = ["DBUS_SESSION_BUS_ADDRESS": session.address, "LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8"]
        for command in [["status"], ["path"], ["wait", "--timeout", "5"], ["host", "127.0.0.1"]] {
            let result = try await runTool(Executables.reachctl, command, environment: environment)
            #expect(result.status == 0, "\(command): \(result.transcript)")
            let lines = result.standardError.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("reachctl: passed over reachd on the session bus: it is installed but did not start "
                                                            + "(Process io.reachd.Reachability1 exited with status 64); its log: "),
                    "\(command): \(result.transcript)")
            #expect(lines.first?.hasSuffix("'reachd --check-config' lists any problem of its configuration "
                                           + "(org.freedesktop.DBus.Error.Spawn.ChildExited)") == true, "\(command): \(result.transcript)")
            if command == ["status"] {
                #expect(!result.standardOutput.contains("no reachd on the session or system bus"), "not 'none here': \(result.transcript)")
                // In this process, unless the machine's system bus has a reachd of its own.
                #expect(result.standardOutput.contains("answered by:  in this process: reachd on the session bus could not answer (see above)")
                        || result.standardOutput.contains("answered by:  reachd on the system bus"), "\(result.transcript)")
            }
        }
        // An address that is set but cannot be used is said the same way (before: not a word).
        let garbage = try await runTool(Executables.reachctl, ["status"], environment: ["DBUS_SESSION_BUS_ADDRESS": "garbage"])
        #expect(garbage.status == 0, "\(garbage.transcript)")
        #expect(garbage.standardError.hasPrefix("reachctl: passed over reachd on the session bus: DBUS_SESSION_BUS_ADDRESS=garbage cannot be used"),
                "\(garbage.transcript)")
    }

    @Test("with no session bus, a system instance that does not start is passed over aloud, with the system instance's own log and check")
    func systemInstanceThatFailsIsPassedOverAloud() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-system-fails-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let configuration = folder + "/reachd.conf"
        try "[reachd]\nsettle-ms=soon\n".write(toFile: configuration, atomically: true, encoding: .utf8)
        // A bus that starts a failing `reachd --system` when asked, as the system bus would.
        let system = try PrivateBus(.session, activationFiles: ["io.reachd.Reachability1.service": """
            [D-BUS Service]
            Name=io.reachd.Reachability1
            Exec=\(Executables.reachd) --system --config \(configuration)
            """])
        defer { system.stop() }
        let child = try ChildProcess(Executables.reachctl, ["status"],
                                     environment: ["DBUS_SYSTEM_BUS_ADDRESS": system.address, "XDG_RUNTIME_DIR": folder, "LANG": "C.UTF-8"],
                                     unsetting: ["DBUS_SESSION_BUS_ADDRESS", "LC_ALL", "LC_MESSAGES"])
        defer { child.removeOutput() }
        let status = try await child.exit(timeout: .seconds(60))
        #expect(status == 0, "\(child.standardError)")
        let log = access("/run/systemd/system", F_OK) == 0 ? "'journalctl -u reachd'"
            : access("/dev/log", F_OK) == 0 ? "the system log (syslog, tag reachd" : "nowhere on this machine"
        let lines = child.standardError.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("reachctl: passed over reachd on the system bus: it is installed but did not start "
                                                        + "(Process io.reachd.Reachability1 exited with status 64); its log: \(log)"),
                "\(child.standardError)")
        #expect(child.standardError.contains("'reachd --check-config --system' (as root: it checks as user reachd)"), "\(child.standardError)")
        #expect(!child.standardError.contains("--user"), "never the session unit's log: \(child.standardError)")
        #expect(child.standardOutput.contains("answered by:  in this process: reachd on the system bus could not answer (see above)"),
                "\(child.standardOutput)")

        // Chosen, it is an error (3) whose hint is the system instance's, not the session unit's.
        let chosen = try ChildProcess(Executables.reachctl, ["status", "--service", "system"],
                                      environment: ["DBUS_SYSTEM_BUS_ADDRESS": system.address, "XDG_RUNTIME_DIR": folder],
                                      unsetting: ["DBUS_SESSION_BUS_ADDRESS"])
        defer { chosen.removeOutput() }
        #expect(try await chosen.exit(timeout: .seconds(60)) == 3, "\(chosen.standardError)")
        #expect(chosen.standardError.contains("its log is \(log)") && chosen.standardError.contains("/etc/reachd/reachd.conf")
                && !chosen.standardError.contains("--user"), "\(chosen.standardError)")
    }

    @Test("the session bus going away: Unknown, with the reason")
    func sessionBusLost() async throws {
        try await withWorld { world in
            let manager = world.manager()
            let seen = Recorder<NetworkReachabilityStatus>()
            manager.setReachabilityStatusChangeHandler { seen.append($0) }
            manager.startMonitoring()
            defer { manager.stopMonitoring() }
            try await seen.waitUntil([.reachableViaWiFi])
            world.session.stop()
            // The bus may drop reachd first and announce that (Unknown), then drop us.
            try await seen.waitUntil([.reachableViaWiFi, .unknown])
            try await eventually(timeout: .seconds(15), "the lost connection is the reason: \(String(describing: manager.lastError))") {
                manager.lastError?.isServiceUnavailable == true
            }
        }
    }

    @Test("one-shot fetchUpdate reads every property; without a service it throws ServiceUnknown")
    func fetchUpdate() async throws {
        try await withWorld(.absent) { world in
            let absent = await #expect(throws: ReachabilityError.self) { try await world.manager().fetchUpdate() }
            #expect(absent?.name == ReachabilityError.serviceUnknown)
            #expect(absent?.isServiceUnavailable == true)
            try await world.startService()
            let update = try await world.manager().fetchUpdate()
            var expected = ReachabilityUpdate(status: .reachableViaWiFi, flags: [.reachable], interfaceType: .other,
                                              interface: "", isMetered: false, connectivity: .full,
                                              backend: .networkmanager)
            // The path API, from reachd's own namespace (rv0 192.0.2.2/24, default via 192.0.2.1;
            // the machine's DNS server is reached that way; the mock runs no connectivity check).
            expected.source = .networkManager
            expected.networkManagerState = .connectedGlobal
            expected.networkManagerMetered = .unknown
            expected.unsatisfiedReason = .none
            expected.level = .dns
            expected.interfaceVersion = 5
            expected.service = .session
            expected.connectivityCheckRunners = []  // the mock's NetworkManager does not check, and reachd has no URI
            var namespace = stat()
            #expect(stat("/proc/self/ns/net", &namespace) == 0)
            expected.networkNamespace = UInt64(namespace.st_ino)
            expected.path = PathFacts(supportsIPv4: true, supportsIPv6: false, supportsDNS: true,
                                      connectivityChecked: false, gateways: ["192.0.2.1"],
                                      availableInterfaces: [.init(name: "rv0", type: .ethernet, hasInternetPath: true)])
            #expect(update == expected)
        }
    }
}
