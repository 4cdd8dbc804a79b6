import Foundation
import PackagePlugin

/// Writes the `ReachdBuildVersion` module's constant from `Scripts/lib/version.sh`, so that
/// `reachd --version`, `reachctl --version`, the Debian package and the manual pages all
/// show the one string that script prints (the release in `VERSION`, plus the commit when
/// built from a checkout).
///
/// A build command, not a prebuild one: SwiftPM 6.3 keeps a prebuild command's output from
/// one build to the next without running it again, so a new commit left the old string in
/// place. A build command runs again whenever one of its inputs changes: `VERSION`, and git's
/// HEAD with its reflog, which git appends to on every commit, checkout, reset and pull.
@main
struct ReachdBuildVersionPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let root = context.package.directoryURL
        let output = context.pluginWorkDirectoryURL.appending(path: "ReachdBuildVersion+Generated.swift")
        let inputs = ["VERSION", "Scripts/lib/version.sh", ".git/HEAD", ".git/logs/HEAD"]
            .map { root.appending(path: $0) }
            .filter { FileManager.default.fileExists(atPath: $0.path) }
        return [
            .buildCommand(
                displayName: "reachd's version from Scripts/lib/version.sh",
                executable: URL(fileURLWithPath: "/bin/bash"),
                arguments: [root.appending(path: "Scripts/lib/version.sh").path, "--swift", output.path],
                inputFiles: inputs,
                outputFiles: [output])
        ]
    }
}
