import Foundation
import TestSupport
import Testing

/// The README's "Embedding" example builds as its own package and prints the status.
@Suite("Example package", .timeLimit(.minutes(15)))
struct ExamplePackageTests {
    @Test("examples/ReachabilityExample builds against the Reachability product and prints the status")
    func examplePackageBuildsAndRuns() async throws {
        let package = Executables.packageRoot.appendingPathComponent("examples/ReachabilityExample").path
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("reachability-example-\(UUID().uuidString.prefix(8))")
        defer {
            try? FileManager.default.removeItem(at: scratch)
            // SwiftPM also leaves lock files named after the scratch path in the temporary folder.
            let temporary = FileManager.default.temporaryDirectory
            let prefix = scratch.path.replacingOccurrences(of: "/", with: "_")
            for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? [] where name.hasPrefix(prefix) {
                try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
            }
        }
        let swift = try #require(Self.findSwift(), "no swift on PATH")
        let build = try await runTool(swift, ["build", "--package-path", package, "--scratch-path", scratch.path],
                                      timeout: .seconds(840))
        #expect(build.succeeded, "\(build.transcript)")
        #expect(!build.standardOutput.contains("warning:"), "\(build.transcript)")
        guard build.succeeded else { return }

        try await withWorld { world in
            let binary = scratch.appendingPathComponent("debug/ReachabilityExample").path
            let run = try await runTool(binary, [], environment: [
                "DBUS_SESSION_BUS_ADDRESS": world.session.address, "LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8",
            ])
            #expect(run.succeeded, "\(run.transcript)")
            #expect(run.standardOutput == "Reachable via WiFi [Reachable] via other\npath satisfied, level dns\n", "\(run.transcript)")
        }
    }

    static func findSwift() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        return path.split(separator: ":").map { "\($0)/swift" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
