import Foundation
import ReachdTestSupport

/// `Scripts/install` as a user runs it, into a scratch DESTDIR, so the machine's own /usr and
/// /usr/local are never touched.
///
/// It builds in PackageTests' folder: `Scripts/package` runs `Scripts/install` too, so the
/// release build (minutes the first time) is made once for both, and SwiftPM's lock on that
/// folder makes the two wait for each other instead of building at once.
enum ScratchInstall {
    static let script = Executables.packageRoot.appendingPathComponent("Scripts/install").path

    /// GLib's giomoduledir, where the install puts the GIO module whatever the prefix, and the
    /// cache gio-querymodules writes there.
    static let gioModuleDirectory = "/usr/lib/x86_64-linux-gnu/gio/modules"
    static let gioModuleCache = gioModuleDirectory + "/giomodule.cache"

    /// Runs `Scripts/install ARGUMENTS` with PREFIX and DESTDIR (and the module's folder its
    /// default, whatever the test's environment says); the result, whatever its status.
    /// `Scripts/install` with `prefix` into a folder beside the build named `folder` (replacing the
    /// last run's, so runs leave nothing in /tmp), once for the tests that ask: the folder.
    static func installOnce(prefix: String, folder: String) -> Task<String, any Error> {
        Task {
            let destination = "\(PackageTests.scratchPath)/\(folder)"
            try? FileManager.default.removeItem(atPath: destination)
            let result = try await run(prefix: prefix, destination: destination)
            guard result.succeeded else { throw TestFailure("Scripts/install failed: \(result.transcript)") }
            return destination
        }
    }

    static func run(prefix: String, destination: String, _ arguments: [String] = []) async throws -> ToolResult {
        try await runTool("/usr/bin/env", ["-u", "GIOMODULEDIR", script] + arguments,
                          environment: ["PREFIX": prefix, "DESTDIR": destination, "REACHD_SCRATCH_PATH": PackageTests.scratchPath],
                          timeout: .seconds(1200))
    }

    /// A fresh scratch folder for a DESTDIR, removed by the caller.
    static func makeDestination(_ name: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-\(name)-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The regular files and the directories under `root`, as absolute paths inside it ("/usr/local/bin/reachd").
    static func tree(under root: String) -> (files: Set<String>, directories: Set<String>) {
        var files: Set<String> = [], directories: Set<String> = []
        for relative in (try? FileManager.default.subpathsOfDirectory(atPath: root)) ?? [] {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: "\(root)/\(relative)", isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue { directories.insert("/\(relative)") } else { files.insert("/\(relative)") }
        }
        return (files, directories)
    }

    /// The manifest's entries: files, and directories (written with a trailing `/`, given here without).
    static func manifest(at path: String) throws -> (files: Set<String>, directories: Set<String>) {
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        return (Set(lines.filter { !$0.hasSuffix("/") }), Set(lines.filter { $0.hasSuffix("/") }.map { String($0.dropLast()) }))
    }
}
