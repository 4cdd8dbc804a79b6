import Foundation
import ReachdTestSupport
import Testing

/// The user units that give user services a network-online target of their own:
/// `reachd-online.target` pulls in `reachd-wait-online.service`, whose ExecStart is a
/// `reachctl wait`. No user systemd instance runs in CI, so the units are checked with
/// `systemd-analyze verify` and their ExecStart line is run as systemd would run it.
@Suite("User units", .timeLimit(.minutes(1)))
struct UserUnitTests {
    static let units = ["reachd-wait-online.service", "reachd-online.target"]

    /// The units as Scripts/install writes them, with @bindir@ the built binaries' folder.
    static func installedUnits() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-units-\(getpid())-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for unit in units {
            let text = try String(contentsOf: Executables.packageRoot.appendingPathComponent("dbus/\(unit)"), encoding: .utf8)
            try text.replacingOccurrences(of: "@bindir@", with: Executables.directory.path)
                .write(to: folder.appendingPathComponent(unit), atomically: true, encoding: .utf8)
        }
        return folder
    }

    @Test func unitsPassSystemdAnalyzeVerify() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") else {
            throw TestFailure("systemd-analyze is missing (Debian package systemd): the units cannot be verified")
        }
        let folder = try Self.installedUnits()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await runTool("/usr/bin/systemd-analyze",
                                       ["verify", "--man=no"] + Self.units.map { folder.appendingPathComponent($0).path })
        #expect(result.status == 0, "\(result.transcript)")
        #expect(result.standardError.isEmpty, "systemd-analyze has no complaint: \(result.transcript)")
    }

    @Test func theWaitServicesExecStartReturnsOnceRoutable() async throws {
        let folder = try Self.installedUnits()
        defer { try? FileManager.default.removeItem(at: folder) }
        let unit = try String(contentsOf: folder.appendingPathComponent("reachd-wait-online.service"), encoding: .utf8)
        let line = try #require(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=") })
        let command = line.dropFirst("ExecStart=".count).split(separator: " ").map(String.init)
        #expect(command.first == Executables.reachctl)
        try await withWorld { world in
            try await world.waitForServiceStatus(.reachableViaWiFi)
            let result = try await runTool(command[0], Array(command.dropFirst()),
                                           environment: ["DBUS_SESSION_BUS_ADDRESS": world.session.address])
            #expect(result.status == 0, "\(result.transcript)")
        }
    }
}
