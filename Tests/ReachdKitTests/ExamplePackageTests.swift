import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// The example package (examples/ReachabilityExample; docs/app-developers/library.md) builds as
/// its own package and prints the status, and its README shows what it prints.
@Suite("Example package", .timeLimit(.minutes(15)))
struct ExamplePackageTests {
    @Test("examples/ReachabilityExample builds against the ReachdKit, SystemConfiguration and Network products and prints the status both ways")
    func examplePackageBuildsAndRuns() async throws {
        let package = Executables.packageRoot.appendingPathComponent("examples/ReachabilityExample").path
        // In the clone's git-ignored scratch folder that Scripts/harness/prepare-tests builds before any
        // test runs (with this command): a full debug build of reachd's products beside the suite's timed
        // tests cost them their CPU (issue 46). Here it is a no-op build, or the whole one when run alone.
        let scratch = Self.preparedScratch
        defer {
            // SwiftPM also leaves lock files named after the scratch path in the temporary folder.
            let temporary = FileManager.default.temporaryDirectory
            let prefix = scratch.path.replacingOccurrences(of: "/", with: "_")
            for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? [] where name.hasPrefix(prefix) {
                try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
            }
        }
        let swift = try #require(Self.findSwift(), "no swift on PATH")
        let build = try await runTool(swift, ["build", "--package-path", package, "--scratch-path", scratch.path],
                                      environment: ["TMPDIR": try Self.temporaryFolder(in: scratch.path)],
                                      timeout: .seconds(840))
        #expect(build.succeeded, "\(build.transcript)")
        // A no-op build prints no warnings: the preparation's own output (its log) is read too.
        let preparedLog = (try? String(contentsOfFile: scratch.appendingPathComponent("build.log").path, encoding: .utf8)) ?? ""
        #expect(!(build.standardOutput + preparedLog).contains("warning:"), "\(build.transcript)\n--- prepared build\n\(preparedLog)")
        guard build.succeeded else { return }

        let binary = scratch.appendingPathComponent("debug/ReachabilityExample").path
        try await withWorld { world in
            let run = try await runTool(binary, [], environment: [
                "DBUS_SESSION_BUS_ADDRESS": world.session.address, "LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8",
            ])
            #expect(run.succeeded, "\(run.transcript)")
            #expect(run.standardOutput == "Reachable via WiFi [Reachable] via other\npath satisfied, level dns\n", "\(run.transcript)")

            // Its Apple-style target, SCNetworkReachability's and NWPathMonitor's code as written for
            // iOS, reads the same network through the same reachd.
            let apple = try await runTool(scratch.appendingPathComponent("debug/AppleStyleExample").path, [], environment: [
                "DBUS_SESSION_BUS_ADDRESS": world.session.address, "LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8",
            ])
            #expect(apple.succeeded, "\(apple.transcript)")
            let lines = apple.standardOutput.split(separator: "\n").map(String.init)
            #expect(lines.count == 2 && lines[0] == "SCNetworkReachability: reachable true, WWAN false"
                    && lines[1].hasPrefix("NWPath: satisfied, expensive false, interfaces ["), "\(apple.transcript)")

            // --watch, with standard output a file (as a container's log is): its first line is there
            // while it runs, and still there after the SIGTERM docker stop sends. Block-buffered, the
            // file stayed empty until 4 KiB, and the SIGTERM lost the lot.
            let watch = try ChildProcess(binary, ["--watch"], environment: [
                "DBUS_SESSION_BUS_ADDRESS": world.session.address, "LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8",
            ])
            defer { watch.stop(SIGKILL); watch.removeOutput() }
            try await eventually(timeout: .seconds(20), "the first line is in the file while the example runs: \(watch.standardError)") {
                watch.standardOutput == "Reachable via WiFi over other\n"
            }
            watch.stop(SIGTERM)
            #expect(watch.standardOutput == "Reachable via WiFi over other\n", "\(watch.standardError)")
        }

        // Its README's output is what it prints on the documentation's Wi-Fi laptop, made by
        // Scripts/readme-examples (network namespaces: root; a skipped check would read as a pass).
        guard geteuid() == 0 else {
            throw TestFailure("""
                the example README's output is checked by Scripts/readme-examples, which needs root \
                (it runs reachd in a network namespace); run the tests as root, e.g. with sudo -E Scripts/test
                """)
        }
        let script = Executables.packageRoot.appendingPathComponent("Scripts/readme-examples").path
        let readme = "\(package)/README.md"
        let check = try await runTool(script, ["--check", readme], environment: [
            "REACHD": Executables.reachd, "REACHCTL": Executables.reachctl, "REACHABILITY_EXAMPLE": binary,
        ], timeout: .seconds(240))
        #expect(check.status == 0, """
            examples/ReachabilityExample/README.md shows other output than the example prints; after checking \
            the change is intended, run Scripts/readme-examples --update with REACHABILITY_EXAMPLE set to the \
            example's executable
            \(check.standardOutput)\(check.standardError)
            """)
    }

    /// Where the example is built: Scripts/harness/prepare-tests's folder for it.
    static let preparedScratch = Executables.packageRoot.appendingPathComponent(".build-fixtures/ReachabilityExample")

    /// A folder for a build's temporary files inside its scratch path: SwiftPM and the Swift driver
    /// leave TemporaryDirectory.* folders and lock files in $TMPDIR, and the machine's /tmp must
    /// stay as the suite found it.
    static func temporaryFolder(in scratch: String) throws -> String {
        let folder = "\(scratch)/tmp"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    static func findSwift() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"
        return path.split(separator: ":").map { "\($0)/swift" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
