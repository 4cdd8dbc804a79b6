import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// `reachd --system` (contract 4, §1): the same service on the system bus for every local
/// user, run as user `reachd` on a bus that denies by default and lets reachd in only through
/// its staged policy file. Callers are other users (`nobody`, a test user) with no session bus.
@Suite("reachd --system on Debian's deny-by-default system bus", .serialized, .timeLimit(.minutes(3)))
struct SystemInstanceTests {
    static let callers = [SystemInstance.nobody, SystemInstance.testUser]

    /// `busctl --address=BUS ARGUMENTS…` as `user`.
    static func busctl(as user: String, on bus: PrivateBus, _ arguments: String...) async throws -> ToolResult {
        try await SystemInstance.run(as: user, bus: bus, "/usr/bin/busctl", ["--address=\(bus.address)"] + arguments)
    }

    @Test("callers of two other users, with no session bus, call every method and read every property, introspect and ping")
    func everyUserIsAnswered() async throws {
        try await withSystemInstance { bus, _, reachd in
            for user in Self.callers {
                let status = try await Self.busctl(as: user, on: bus, "call", ReachdProcess.busName, ReachdProcess.path,
                                                   ReachdProcess.interface, "GetStatus")
                #expect(status.standardOutput.hasPrefix("iu "), "\(user): GetStatus \(status.transcript)")
                let path = try await Self.busctl(as: user, on: bus, "call", ReachdProcess.busName, ReachdProcess.path,
                                                 ReachdProcess.interface, "GetPath")
                #expect(path.standardOutput.hasPrefix("a{sv} "), "\(user): GetPath \(path.transcript)")
                let host = try await Self.busctl(as: user, on: bus, "call", ReachdProcess.busName, ReachdProcess.path,
                                                 ReachdProcess.interface, "CheckHost", "s", "127.0.0.1")
                #expect(host.standardOutput.hasPrefix("iu "), "\(user): CheckHost \(host.transcript)")
                let properties = try await Self.busctl(as: user, on: bus, "get-property", ReachdProcess.busName, ReachdProcess.path,
                                                       ReachdProcess.interface, "Status", "Backend", "InterfaceVersion")
                #expect(properties.succeeded && properties.standardOutput.contains("\"networkmanager\""),
                        "\(user): Properties.Get \(properties.transcript)")
                let introspection = try await Self.busctl(as: user, on: bus, "introspect", ReachdProcess.busName, ReachdProcess.path)
                #expect(introspection.standardOutput.contains("ReachabilityChanged"), "\(user): Introspect \(introspection.transcript)")
                let ping = try await Self.busctl(as: user, on: bus, "call", ReachdProcess.busName, ReachdProcess.path,
                                                 "org.freedesktop.DBus.Peer", "Ping")
                #expect(ping.succeeded, "\(user): Peer.Ping \(ping.transcript)")
            }
            // The user it could not inspect (its /proc/PID/root is closed to user reachd) is a host
            // process by its cgroup, not refused for that alone.
            #expect(!reachd.standardError.contains("refusing"), "\(reachd.standardError)")
        }
    }

    @Test("a Flatpak app of another user (by its cgroup) is refused as an app without network; a host process of that user is served")
    func anotherUsersFlatpakAppIsRefused() async throws {
        try await withSystemInstance { bus, _, reachd in
            // A scope as Flatpak makes one, in whichever hierarchy this machine names systemd's.
            let hierarchy = ["/sys/fs/cgroup/systemd", "/sys/fs/cgroup/unified", "/sys/fs/cgroup"]
                .first { access($0 + "/cgroup.procs", W_OK) == 0 }
            let root = try #require(hierarchy, "no writable cgroup hierarchy to make a Flatpak-like scope in")
            let scope = root + "/app-flatpak-org.example.Offline-\(getpid()).scope"
            try FileManager.default.createDirectory(atPath: scope, withIntermediateDirectories: false)
            defer { rmdir(scope) }
            // The caller moves itself into the scope, then becomes nobody and calls.
            let call = try SystemInstance.dropPrivileges(to: SystemInstance.nobody)
                + ["/usr/bin/busctl", "--address=\(bus.address)", "call", ReachdProcess.busName, ReachdProcess.path,
                   ReachdProcess.interface, "GetStatus"]
            let refused = try await runTool("/bin/sh", ["-c", "echo $$ > \"$0\"/cgroup.procs && exec /usr/bin/setpriv \"$@\"", scope] + call)
            #expect(!refused.succeeded, "\(refused.transcript)")
            #expect(refused.standardError.contains("runs as another user, so reachd cannot read whether it has network access"),
                    "\(refused.transcript)")
            #expect(reachd.standardError.contains("Flatpak app org.example.Offline of another user"), "\(reachd.standardError)")
            // The same user outside any such scope is a host process.
            let served = try await Self.busctl(as: SystemInstance.nobody, on: bus, "call", ReachdProcess.busName, ReachdProcess.path,
                                               ReachdProcess.interface, "GetStatus")
            #expect(served.standardOutput.hasPrefix("iu "), "\(served.transcript)")
        }
    }

    @Test("no user but reachd (and root) may own io.reachd.Reachability1")
    func onlyReachdOwnsTheName() async throws {
        try await withSystemInstance { bus, _, _ in
            for user in Self.callers {
                let claim = try await Self.busctl(as: user, on: bus, "call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                  "org.freedesktop.DBus", "RequestName", "su", ReachdProcess.busName, "4")
                #expect(!claim.succeeded && claim.standardError.contains("Access denied"), "\(user): \(claim.transcript)")
            }
        }
    }

    @Test("one user's two connections share its monitor limit; another user keeps its own")
    func monitorLimitIsPerUser() async throws {
        try await withSystemInstance(arguments: ["--max-monitors-per-client", "3"]) { bus, _, reachd in
            let holder = SystemInstance.repository.appendingPathComponent("Scripts/harness/monitor-holder").path
            func hold(as user: String, connections: Int, each: Int) async throws -> (ChildProcess, [String]) {
                let child = try SystemInstance.asUser(user, bus: bus, holder, [bus.address, String(connections), String(each)])
                try await eventually(timeout: .seconds(30), "\(user)'s monitor-holder is ready:\n\(child.standardOutput)\(child.standardError)") {
                    if child.poll() != nil { throw TestFailure("monitor-holder exited: \(child.standardOutput)\(child.standardError)") }
                    return child.standardOutput.contains("ready\n")
                }
                return (child, child.standardOutput.split(separator: "\n").map(String.init).filter { $0 != "ready" })
            }
            let (first, nobody) = try await hold(as: SystemInstance.nobody, connections: 2, each: 2)
            defer { first.stop() }
            #expect(nobody.map { $0.split(separator: " ").prefix(3).joined(separator: " ") } == ["0 0 ok", "0 1 ok", "1 0 ok", "1 1 error"],
                    "nobody's second connection shares the first one's allowance:\n\(nobody.joined(separator: "\n"))")
            #expect(nobody.last?.contains("io.reachd.Reachability1.Error.LimitExceeded") == true, "\(nobody)")
            #expect(nobody.last?.contains("this user (uid 65534) already holds 3 monitors over all its connections") == true, "\(nobody)")

            let (second, tester) = try await hold(as: SystemInstance.testUser, connections: 1, each: 3)
            defer { second.stop() }
            #expect(tester.allSatisfy { $0.contains(" ok ") }, "another user has its own three:\n\(tester.joined(separator: "\n"))")
            let count = try await runToolChecked("busctl", ["--address=\(bus.address)", "get-property", ReachdProcess.busName,
                                                            ReachdProcess.path, ReachdProcess.interface, "MonitorCount"])
            #expect(count.standardOutput == "u 6\n", "\(count.transcript)\n\(reachd.standardError)")
        }
    }

    @Test("a host monitor is read only by its own user: another user's Get of its Host is refused, the owner's other connections read it")
    func monitorsArePrivateToTheirUser() async throws {
        try await withSystemInstance { bus, _, _ in
            let holder = SystemInstance.repository.appendingPathComponent("Scripts/harness/monitor-holder").path
            let child = try SystemInstance.asUser(SystemInstance.nobody, bus: bus, holder, [bus.address, "1", "1", "192.0.2.7"])
            defer { child.stop(); child.removeOutput() }
            try await eventually(timeout: .seconds(30), "monitor-holder is ready:\n\(child.standardOutput)\(child.standardError)") {
                if child.poll() != nil { throw TestFailure("monitor-holder exited: \(child.standardOutput)\(child.standardError)") }
                return child.standardOutput.contains("ready\n")
            }
            let path = try #require(child.standardOutput.split(separator: " ").first { $0.hasPrefix("/io/reachd/Reachability1/Monitors/") }
                .map { String($0.split(separator: "\n")[0]) }, "\(child.standardOutput)")
            let read = ["get-property", ReachdProcess.busName, path, "io.reachd.Reachability1.Monitor", "Host"]
            let stranger = try await SystemInstance.run(as: SystemInstance.testUser, bus: bus, "/usr/bin/busctl", ["--address=\(bus.address)"] + read)
            #expect(!stranger.succeeded && stranger.standardError.contains("belongs to another user"), "\(stranger.transcript)")
            let owner = try await SystemInstance.run(as: SystemInstance.nobody, bus: bus, "/usr/bin/busctl", ["--address=\(bus.address)"] + read)
            #expect(owner.standardOutput == "s \"192.0.2.7\"\n", "\(owner.transcript)")
        }
    }

    @Test("many users' simultaneous CheckConnectivity calls run one check, and all get its answer")
    func checkConnectivityRunsOnceForEveryone() async throws {
        try await withSystemInstance { bus, mock, _ in
            try await mock.call(NetworkManagerMock.manager, NetworkManagerMock.mockInterface, "AddMethod", "sssss",
                                NetworkManagerMock.name, "CheckConnectivity", "", "u", "import time; time.sleep(0.3); ret = dbus.UInt32(4)")
            let answers = try await withThrowingTaskGroup(of: ToolResult.self) { group in
                for index in 0..<12 {
                    let user = Self.callers[index % 2]
                    group.addTask {
                        try await Self.busctl(as: user, on: bus, "call", ReachdProcess.busName, ReachdProcess.path,
                                              ReachdProcess.interface, "CheckConnectivity")
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for answer in answers { #expect(answer.standardOutput == "s \"full\"\n", "\(answer.transcript)") }
            let calls = try await mock.call(NetworkManagerMock.manager, NetworkManagerMock.mockInterface, "GetMethodCalls",
                                            "s", "CheckConnectivity")
            #expect(calls.hasPrefix("a(tav) 1 "), "NetworkManager was asked once: \(calls)")
        }
    }

    @Test("another user's caller in a network namespace of its own (unshare -n, bwrap --unshare-net) is told OtherNetworkNamespace for CheckHost and GetPath, so no name is looked up for it; the same user in reachd's namespace is answered")
    func anotherUsersCallerInItsOwnNamespace() async throws {
        try await withSystemInstance { bus, _, _ in
            let nobody = try SystemInstance.dropPrivileges(to: SystemInstance.nobody)
            let call = ["/usr/bin/busctl", "--address=\(bus.address)", "call", ReachdProcess.busName, ReachdProcess.path, ReachdProcess.interface]
            // reachd may not read this caller's /proc/PID/ns/net (no ptrace rights on another user's
            // process); /proc/PID/net tells it all the same (contract 7, §3).
            let isolations: [(String, [String])] = [
                ("unshare -n", ["/usr/bin/unshare", "--net", "--", "/usr/bin/setpriv"] + nobody),
                ("bwrap --unshare-net", ["/usr/bin/setpriv"] + nobody + ["/usr/bin/bwrap", "--unshare-net", "--dev-bind", "/", "/", "--"]),
            ]
            for (isolation, wrapper) in isolations {
                for (method, arguments) in [("CheckHost", ["s", "exfil-\(UUID().uuidString.prefix(6).lowercased()).leak.sec.test"]), ("GetPath", [])] {
                    let command = wrapper + call + [method] + arguments
                    let refused = try await runTool(command[0], Array(command.dropFirst()))
                    #expect(!refused.succeeded && refused.standardError.contains("reachd's routes and interfaces are not this program's"),
                            "\(isolation), \(method): \(refused.transcript)")
                }
            }
            // The positive control: the same user, in reachd's namespace.
            let answered = try await Self.busctl(as: SystemInstance.nobody, on: bus, "call", ReachdProcess.busName, ReachdProcess.path,
                                                 ReachdProcess.interface, "CheckHost", "s", "127.0.0.1")
            #expect(answered.standardOutput.hasPrefix("iu "), "\(answered.transcript)")
        }
    }

    @Test("reachctl as nobody, with no session bus, answers from the system instance and says so")
    func reachctlFindsTheSystemInstance() async throws {
        let reachctl = URL(fileURLWithPath: ReachdProcess.executable).deletingLastPathComponent().appendingPathComponent("reachctl").path
        try await withSystemInstance { bus, _, _ in
            let json = try await SystemInstance.run(as: SystemInstance.nobody, bus: bus, reachctl, ["status", "--json"])
            #expect(json.status == 0, "\(json.transcript)")
            #expect(json.standardOutput.contains("\"service\":\"system\""), "\(json.transcript)")
            #expect(json.standardOutput.contains("\"backend\":\"networkmanager\""), "the system instance's answer: \(json.transcript)")
            let text = try await SystemInstance.run(as: SystemInstance.nobody, bus: bus, reachctl, ["status"], environment: ["LANG": "C"])
            #expect(text.standardOutput.contains("answered by:  reachd on the system bus"), "\(text.transcript)")
            #expect(!text.standardError.contains("no session bus"), "\(text.transcript)")
        }
    }

    @Test("where ConnMan manages the network (NetworkManager gone), the system instance follows it, and callers of another user are told so")
    func followsConnMan() async throws {
        let standIn = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Scripts/harness/connman-standin").path
        let reachctl = URL(fileURLWithPath: ReachdProcess.executable).deletingLastPathComponent().appendingPathComponent("reachctl").path
        try await withSystemInstance { bus, mock, reachd in
            mock.stop()
            // As root, as connmand runs: Debian's connman.conf lets root alone own net.connman.
            let connman = try ChildProcess("/usr/bin/python3", [standIn, bus.address])
            defer { connman.stop() }
            try await eventually("the stand-in owns net.connman:\n\(connman.standardError)") { connman.standardOutput.contains("READY") }
            let state = #"{"State":"online","Services":[{"id":"ethernet_1","Type":"ethernet","State":"online","Interface":"rv0"}]}"#
            try await runToolChecked("busctl", ["--address=\(bus.address)", "call", "net.connman", "/io/reachd/test/ConnManStandIn",
                                                "io.reachd.test.ConnManStandIn", "Set", "s", state])
            try await eventually(timeout: .seconds(10), "reachd --system follows ConnMan:\n\(reachd.standardError.suffix(2000))") {
                let seen = try await Self.busctl(as: SystemInstance.nobody, on: bus, "get-property", ReachdProcess.busName,
                                                 ReachdProcess.path, ReachdProcess.interface, "Backend", "Connectivity", "Status")
                return seen.standardOutput == "s \"connman\"\ns \"full\"\ni 2\n"
            }
            let json = try await SystemInstance.run(as: SystemInstance.nobody, bus: bus, reachctl, ["status", "--json"])
            #expect(json.standardOutput.contains("\"backend\":\"connman\""), "\(json.transcript)")
        }
    }

    @Test("says at start which bus it serves and which configuration file it read")
    func logsItsBusAndFile() async throws {
        try await withSystemInstance { _, _, reachd in
            #expect(reachd.standardError.contains("serving the system bus; no configuration file (--no-config)"), "\(reachd.standardError)")
            #expect(reachd.standardError.contains("serving io.reachd.Reachability1 on the system bus"), "\(reachd.standardError)")
        }
    }
}
