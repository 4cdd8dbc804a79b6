import Foundation
import Glibc
import ReachdTestSupport
import Testing
import ReachdCore

/// reachd answers for its own network namespace only (contract 4, §2.1): it says which one it
/// is in (`NetworkNamespace`), and a caller in another gets `OtherNetworkNamespace` from the
/// methods that answer for a host or a path, while its properties stay readable. The caller
/// here runs in a network namespace of its own and reaches the session bus through its path
/// socket, as a container that sees the user's `/run/user/UID/bus` does.
@Suite("reachd and network namespaces", .timeLimit(.minutes(2)))
struct NetworkNamespaceTests {
    /// `busctl ARGUMENTS…` on `session`, from a fresh network namespace with only `lo`.
    static func fromAnotherNamespace(_ session: PrivateBus, _ arguments: [String]) async throws -> ToolResult {
        try await runTool("/usr/bin/unshare", ["--net", "--", "/usr/bin/busctl", "--address=\(session.address)"] + arguments)
    }

    @Test("NetworkNamespace is the inode of reachd's /proc/PID/ns/net, and never changes")
    func publishesItsNamespace() async throws {
        try await withPrivateBus { session in
            try await withReachd(session: session, systemBus: absentSystemBusAddress()) { reachd in
                var status = stat()
                #expect(stat("/proc/\(reachd.pid)/ns/net", &status) == 0)
                let property = try await session.busctl("get-property", ReachdProcess.busName, ReachdProcess.path,
                                                        ReachdProcess.interface, "NetworkNamespace")
                #expect(property.standardOutput == "t \(status.st_ino)\n", "\(property.transcript)")
                let version = try await session.busctl("get-property", ReachdProcess.busName, ReachdProcess.path,
                                                       ReachdProcess.interface, "InterfaceVersion")
                #expect(version.standardOutput == "u \(PublishedReachability.interfaceVersion)\n", "\(version.transcript)")
            }
        }
    }

    @Test("from another namespace: CheckHost, ManagerForDomain, ManagerForAddress and GetPath answer OtherNetworkNamespace; GetStatus and properties answer")
    func refusesHostAndPathQuestionsFromAnotherNamespace() async throws {
        try await withPrivateBus { session in
            try await withReachd(session: session, systemBus: absentSystemBusAddress()) { _ in
                let call = ["call", ReachdProcess.busName, ReachdProcess.path, ReachdProcess.interface]
                for (method, arguments) in [("CheckHost", ["s", "127.0.0.1"]), ("ManagerForDomain", ["s", "example.org"]),
                                            ("ManagerForAddress", ["s", "192.0.2.7"]), ("GetPath", [])] {
                    let refused = try await Self.fromAnotherNamespace(session, call + [method] + arguments)
                    #expect(!refused.succeeded, "\(method): \(refused.transcript)")
                    #expect(refused.standardError.contains("reachd's routes and interfaces are not this program's"), "\(method): \(refused.transcript)")
                    #expect(refused.standardError.contains("REACHD_SERVICE=in-process"), "it says what to do: \(refused.transcript)")
                }
                let status = try await Self.fromAnotherNamespace(session, call + ["GetStatus"])
                #expect(status.standardOutput.hasPrefix("iu "), "\(status.transcript)")
                let properties = try await Self.fromAnotherNamespace(session, ["get-property", ReachdProcess.busName, ReachdProcess.path,
                                                                               ReachdProcess.interface, "Status", "NetworkNamespace"])
                #expect(properties.succeeded, "\(properties.transcript)")
                // The refusal names the error; busctl prints only its sentence, dbus-send its name.
                let named = try await runTool("/usr/bin/unshare", ["--net", "--", "dbus-send", "--bus=\(session.address)", "--print-reply",
                                                                   "--dest=\(ReachdProcess.busName)", ReachdProcess.path,
                                                                   "\(ReachdProcess.interface).CheckHost", "string:127.0.0.1"])
                #expect(named.standardError.contains("io.reachd.Error.OtherNetworkNamespace"), "\(named.transcript)")
                // From its own namespace, the same call is answered.
                let answered = try await session.busctl("call", ReachdProcess.busName, ReachdProcess.path, ReachdProcess.interface,
                                                        "CheckHost", "s", "127.0.0.1")
                #expect(answered.standardOutput.hasPrefix("iu "), "\(answered.transcript)")
            }
        }
    }
}
