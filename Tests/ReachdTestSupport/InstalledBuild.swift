import Foundation

/// reachd as `Scripts/install` builds it (release, the Swift runtime static): for the tests
/// whose figures are the product's, not a debug build's (the flood's 1 s). Built by the same
/// command into the same folder as Scripts/harness/prepare-tests and the install tests, so in a
/// whole run it is already there and this costs a no-op build; a filtered run builds it here.
public enum InstalledBuild {
    static let scratchPath = SystemInstance.repository.appendingPathComponent(".build-package").path

    /// The release reachd's path, once built (once per test process).
    public static var reachd: String {
        get async throws { try await built.value + "/reachd" }
    }

    private static let built = Task<String, any Error> {
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-installed-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: destination) }
        let script = SystemInstance.repository.appendingPathComponent("Scripts/install").path
        let result = try await runTool("/usr/bin/env", ["-u", "GIOMODULEDIR", script],
                                       environment: ["PREFIX": "/usr/local", "DESTDIR": destination, "REACHD_SCRATCH_PATH": scratchPath],
                                       timeout: .seconds(1200))
        guard result.succeeded else { throw TestFailure("Scripts/install failed: \(result.transcript)") }
        return scratchPath + "/release"
    }

    /// The corpus driver (reachd-corpus) built the same way into the same folder
    /// (Scripts/harness/corpus-release): the release form of the corpus test.
    public static var corpusDriver: String {
        get async throws { try await corpus.value }
    }

    private static let corpus = Task<String, any Error> {
        let script = SystemInstance.repository.appendingPathComponent("Scripts/harness/corpus-release").path
        let result = try await runTool(script, [], environment: ["REACHD_SCRATCH_PATH": scratchPath], timeout: .seconds(1200))
        guard result.succeeded, let path = result.standardOutput.split(separator: "\n").last else {
            throw TestFailure("Scripts/harness/corpus-release failed: \(result.transcript)")
        }
        return String(path)
    }
}
