import Foundation
import Glibc
import TestSupport
import Testing

/// reachctl's exit statuses are part of its interface: scripts tell "the network
/// is down" (1) from "reachd cannot be reached" (3) and from a typo (64).
@Suite("reachctl exit statuses")
struct ReachctlExitStatusTests {
    @Test func anUnknownCommandIsAUsageErrorThatNamesTheCommands() async throws {
        let result = try await runTool(Executables.reachctl, ["stauts"])
        #expect(result.status == 64)
        #expect(result.standardError.contains("unknown command 'stauts'"), "\(result.transcript)")
        #expect(result.standardError.contains("status, watch, host, wait"), "\(result.transcript)")
    }

    @Test func waitWithoutASessionBusSaysReachdIsUnavailableNotThatTheNetworkIsDown() async throws {
        // No DBUS_SESSION_BUS_ADDRESS and an XDG_RUNTIME_DIR without a bus socket.
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("reachctl-no-bus-\(getpid())").path
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let child = try ChildProcess(Executables.reachctl, ["wait", "--timeout", "1"],
                                     environment: ["XDG_RUNTIME_DIR": empty],
                                     unsetting: ["DBUS_SESSION_BUS_ADDRESS"])
        defer { child.removeOutput() }
        let status = try await child.exit(timeout: .seconds(30))
        #expect(status == 3, "stderr: \(child.standardError)")
        #expect(child.standardError.contains("no session bus"), "\(child.standardError)")
    }
}
