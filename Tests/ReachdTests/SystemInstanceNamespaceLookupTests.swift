import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// A process with no network gets no name looked up through the system instance (issue 44 item
/// 2, contract 7 §3). The review saw it: another user in a network namespace of its own asked
/// `CheckHost("exfil-….leak.sec.test")`, and the name server outside logged the A and AAAA
/// queries. Here the name server is one the test runs and listens to, named in reachd's own
/// `/etc/resolv.conf`; the caller in reachd's namespace is the control that shows it hears.
@Suite("reachd --system looks no name up for a caller with no network", .serialized, .timeLimit(.minutes(5)))
struct SystemInstanceNamespaceLookupTests {
    /// A name server on UDP port 53 of `argv[1]` that prints each question (`A name`) and
    /// answers NXDOMAIN, so that no lookup waits.
    static let nameServer = """
        import socket, sys
        server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        server.bind((sys.argv[1], 53))
        print("listening", flush=True)
        while True:
            query, peer = server.recvfrom(4096)
            if len(query) < 17:
                continue
            at, labels = 12, []
            while at < len(query) and query[at] != 0:
                labels.append(query[at + 1:at + 1 + query[at]].decode("ascii", "replace"))
                at += 1 + query[at]
            kind = int.from_bytes(query[at + 1:at + 3], "big")
            print({1: "A", 28: "AAAA"}.get(kind, str(kind)), ".".join(labels), flush=True)
            flags = bytes([0x80 | (query[2] & 0x01), 0x80 | 3])
            server.sendto(query[:2] + flags + query[4:6] + bytes(6) + query[12:at + 5], peer)
        """

    @Test("another user's caller in a network namespace of its own (unshare -n, bwrap --unshare-net) has no name looked up: reachd's name server hears none of its names, and hears the same user's name asked from reachd's namespace")
    func noQueryLeavesForANetworklessCaller() async throws {
        let (server, resolver) = try await Self.startNameServer()
        defer {
            server.stop(SIGKILL)
            server.removeOutput()
            try? FileManager.default.removeItem(atPath: (resolver as NSString).deletingLastPathComponent)
        }
        try await withInstalledSystemInstance(resolverConfiguration: resolver) { bus, _ in
            let nobody = try SystemInstance.dropPrivileges(to: SystemInstance.nobody)
            let id = UUID().uuidString.prefix(8).lowercased()
            let call = ["/usr/bin/busctl", "--address=\(bus.address)", "call", ReachdProcess.busName, ReachdProcess.path,
                        ReachdProcess.interface, "CheckHost", "s"]
            let isolations: [(String, [String])] = [
                ("unshare -n", ["/usr/bin/unshare", "--net", "--", "/usr/bin/setpriv"] + nobody),
                ("bwrap --unshare-net", ["/usr/bin/setpriv"] + nobody + ["/usr/bin/bwrap", "--unshare-net", "--dev-bind", "/", "/", "--"]),
            ]
            for (index, (isolation, wrapper)) in isolations.enumerated() {
                let command = wrapper + call + ["exfil-\(id)-\(index).leak.sec.test"]
                let refused = try await runTool(command[0], Array(command.dropFirst()))
                #expect(!refused.succeeded && refused.standardError.contains("reachd's routes and interfaces are not this program's"),
                        "\(isolation): \(refused.transcript)")
            }
            // The control, after them: the same user in reachd's namespace has its name looked up.
            let control = "control-\(id).leak.sec.test"
            let answered = try await SystemInstance.run(as: SystemInstance.nobody, bus: bus, "/usr/bin/busctl",
                                                        ["--address=\(bus.address)", "call", ReachdProcess.busName, ReachdProcess.path,
                                                         ReachdProcess.interface, "CheckHost", "s", control])
            #expect(answered.standardOutput.hasPrefix("iu "), "\(answered.transcript)")
            try await eventually(timeout: .seconds(20), "the name server hears the control's name: \(server.standardOutput)") {
                server.standardOutput.contains(control)
            }
            let questions = server.standardOutput.split(separator: "\n").filter { $0 != "listening" }
            let leaked = questions.filter { $0.contains("exfil-\(id)") }
            #expect(leaked.isEmpty, "names of callers with no network reached the name server: \(leaked)")
            let heard = questions.filter { $0.contains(control) }
            print("SystemInstanceNamespaceLookupTests: callers with no network (unshare -n, bwrap --unshare-net): \(leaked.count) queries; "
                  + "the control in reachd's namespace: \(heard.count) (\(heard.joined(separator: ", ")))")
        }
    }

    /// A name server on a loopback address of this run's own (port 53 of 127.0.0.1 may be
    /// another test's), and a resolv.conf naming it.
    static func startNameServer() async throws -> (ChildProcess, String) {
        for _ in 0..<8 {
            let address = "127.0.\(Int.random(in: 40...250)).\(Int.random(in: 2...250))"
            let server = try ChildProcess("/usr/bin/python3", ["-c", Self.nameServer, address])
            let started = ContinuousClock.now
            while server.poll() == nil, !server.standardOutput.contains("listening"), ContinuousClock.now - started < .seconds(20) {
                try await Task.sleep(for: .milliseconds(20))
            }
            guard server.standardOutput.contains("listening") else {
                server.stop(SIGKILL)
                server.removeOutput()
                continue
            }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-resolver-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
            let file = folder.appendingPathComponent("resolv.conf")
            try "nameserver \(address)\noptions timeout:2 attempts:1\n".write(to: file, atomically: true, encoding: .utf8)
            guard chmod(file.path, 0o644) == 0 else { throw TestFailure("chmod \(file.path) failed") }
            return (server, file.path)
        }
        throw TestFailure("no loopback address of 127.0.40-250.x took a name server on port 53")
    }
}
