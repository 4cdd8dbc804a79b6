import Foundation
import Glibc
import ReachdTestSupport
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

    @Test("wait with the session bus chosen and none there: reachd is unavailable (3), not that the network is down")
    func waitWithoutASessionBusSaysReachdIsUnavailableNotThatTheNetworkIsDown() async throws {
        // No DBUS_SESSION_BUS_ADDRESS and an XDG_RUNTIME_DIR without a bus socket.
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("reachctl-no-bus-\(getpid())").path
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        let child = try ChildProcess(Executables.reachctl, ["wait", "--timeout", "1", "--service", "session"],
                                     environment: ["XDG_RUNTIME_DIR": empty],
                                     unsetting: ["DBUS_SESSION_BUS_ADDRESS"])
        defer { child.removeOutput() }
        let status = try await child.exit(timeout: .seconds(30))
        #expect(status == 3, "stderr: \(child.standardError)")
        #expect(child.standardError.contains("no session bus"), "\(child.standardError)")
    }

    @Test("with the session bus chosen, an address that names no usable bus is 'reachd unavailable' (3), never a refusal (4)",
          arguments: ["garbage", "unix:", "nonce-tcp:", "unix:path=/nonexistent/bus", "tcp:host=127.0.0.1,port=1"])
    func anUnusableBusAddressExits3(address: String) async throws {
        for command in [["status"], ["path"], ["host", "example.org"], ["wait", "--timeout", "0"]] {
            let result = try await runTool(Executables.reachctl, command,
                                           environment: ["DBUS_SESSION_BUS_ADDRESS": address, "REACHD_SERVICE": "session"])
            #expect(result.status == 3, "\(command): \(result.transcript)")
            #expect(result.standardError.hasPrefix("reachctl: cannot connect to the session bus at \(address) ($DBUS_SESSION_BUS_ADDRESS): "),
                    "\(command): \(result.transcript)")
        }
    }

    @Test("an answer that cannot be written (standard output on /dev/full) is exit 74 with a message, never 0")
    func aFailedWriteIsExit74() async throws {
        for command in ["status", "path", "status --json"] {
            let result = try await runTool("/bin/sh", ["-c", "exec \"$0\" \(command) > /dev/full", Executables.reachctl],
                                           environment: ["REACHD_SERVICE": "in-process"])
            #expect(result.status == 74, "\(command): \(result.transcript)")
            #expect(result.standardError == "reachctl: cannot write to standard output: No space left on device\n",
                    "\(command): \(result.transcript)")
        }
    }

    @Test("REACHD_SERVICE that names no provider is a usage error (64), for every command")
    func anUnknownProviderIsAUsageError() async throws {
        for command in [["status"], ["path"], ["host", "example.org"], ["wait", "--timeout", "0"], ["watch"]] {
            let result = try await runTool(Executables.reachctl, command, environment: ["REACHD_SERVICE": "sesion"])
            #expect(result.status == 64, "\(command): \(result.transcript)")
            #expect(result.standardError.contains("REACHD_SERVICE=sesion names no provider: it is session, system or in-process"),
                    "\(command): \(result.transcript)")
        }
    }
}
