import ReachdTestSupport
import Testing

/// `CheckConnectivity()`: the check that exists, run now (NetworkManager's, reachd's own), or
/// the source's standing verdict (ConnMan's), never something `Connectivity` contradicts;
/// `NotSupported` where nothing checks, saying why of every source; another daemon's errors
/// summarised, never passed on with their pids and command lines.
@Suite("CheckConnectivity", .timeLimit(.minutes(3)))
struct CheckConnectivityTests {
    static func call(_ session: PrivateBus) async throws -> ToolResult {
        try await session.gdbus("call", "--dest", ReachdProcess.busName, "--object-path", ReachdProcess.path,
                                "--method", ReachdProcess.interface + ".CheckConnectivity")
    }

    @Test func withoutNetworkManagerItIsNotSupported() async throws {
        try await withPrivateBus { session in
            try await withReachd(session: session, systemBus: absentSystemBusAddress()) { _ in
                let result = try await Self.call(session)
                #expect(!result.succeeded)
                #expect(result.standardError.contains("org.freedesktop.DBus.Error.NotSupported"), "\(result.transcript)")
                // Every source is named, and what would make a check run.
                for source in ["NetworkManager", "ConnMan", "systemd-networkd", "[connectivity] uri="] {
                    #expect(result.standardError.contains(source), "names \(source): \(result.transcript)")
                }
            }
        }
    }

    @Test func networkManagersAnswerIsReturnedInReachdsWords() async throws {
        try await withReachdOverWiFi { session, mock, _, _ in
            // The template has no CheckConnectivity: give it one that finds a portal.
            try await mock.call(NetworkManagerMock.manager, NetworkManagerMock.mockInterface, "AddMethod", "sssss",
                                NetworkManagerMock.name, "CheckConnectivity", "", "u", "ret = dbus.UInt32(2)")
            let result = try await Self.call(session)
            #expect(result.standardOutput == "('portal',)\n", "\(result.transcript)")
        }
    }

    @Test("NetworkManager's refusal is summarised: its error's name, never polkit's pids and command lines")
    func networkManagersRefusalIsSummarised() async throws {
        try await withReachdOverWiFi { session, mock, _, _ in
            // As NetworkManager relays polkit's refusal: the subject's pid and command line in the sentence.
            let refusal = "raise dbus.exceptions.DBusException('Not authorized to perform this operation (polkit: "
                + "subject unix-process pid 4242 cmdline /usr/sbin/reachd --system, NetworkManager pid 777)', "
                + "name='org.freedesktop.NetworkManager.PermissionDenied')"
            try await mock.call(NetworkManagerMock.manager, NetworkManagerMock.mockInterface, "AddMethod", "sssss",
                                NetworkManagerMock.name, "CheckConnectivity", "", "u", refusal)
            let result = try await Self.call(session)
            #expect(!result.succeeded)
            #expect(result.standardError.contains("org.freedesktop.DBus.Error.AccessDenied"), "\(result.transcript)")
            #expect(result.standardError.contains(
                "NetworkManager refused the check: not authorized (org.freedesktop.NetworkManager.PermissionDenied)"),
                "\(result.transcript)")
            for leak in ["4242", "777", "cmdline", "/usr/sbin/reachd", "polkit"] {
                #expect(!result.standardError.contains(leak), "\(leak) passed through: \(result.transcript)")
            }
        }
    }

    @Test("ConnMan's standing verdict: online answers full, ready answers what Connectivity says, never none beside full")
    func connmansStandingVerdict() async throws {
        try await ConnManStandInTests.withStandIn { namespaces, reachd, set in
            let link = try namespaces.value("CLIENT_IF")
            func answer() async throws -> String {
                let result = try await reachd.session.gdbus(
                    "call", "--dest", ReachdProcess.busName, "--object-path", ReachdProcess.path,
                    "--method", ReachdProcess.interface + ".CheckConnectivity")
                guard result.succeeded else { throw TestFailure("CheckConnectivity failed: \(result.transcript)") }
                return result.standardOutput
            }
            try await set(#"{"State":"online","Services":[{"id":"ethernet_1","Type":"ethernet","State":"online","Interface":"\#(link)"}]}"#)
            try await ConnManStandInTests.expectProperties(["Connectivity": "s \"full\"", "Backend": "s \"connman\""],
                                                           after: "ethernet online", reachd: reachd)
            #expect(try await answer() == "('full',)\n")
            try await set(#"{"State":"ready","Services":[{"id":"ethernet_1","Type":"ethernet","State":"ready","Interface":"\#(link)"}]}"#)
            try await ConnManStandInTests.expectProperties(["Connectivity": "s \"unknown\"", "Status": "i 2"],
                                                           after: "ethernet ready", reachd: reachd)
            #expect(try await answer() == "('unknown',)\n", "ConnMan's check has not passed: not none, not full")
        }
    }
}
