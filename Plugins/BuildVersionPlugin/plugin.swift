import Foundation
import PackagePlugin

/// Writes the `BuildVersion` module's constant from `Scripts/lib/version.sh`, so that
/// `reachd --version`, `reachctl --version`, the Debian package and the manual pages all
/// show the one string that script prints (the release in `VERSION`, plus the commit when
/// built from a checkout).
///
/// A prebuild command runs before every build, so a new commit changes the string without a
/// clean build; the script rewrites the file only when the string changed, so an unchanged
/// tree recompiles nothing.
@main
struct BuildVersionPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let script = context.package.directoryURL.appending(path: "Scripts/lib/version.sh")
        let output = context.pluginWorkDirectoryURL.appending(path: "generated")
        return [
            .prebuildCommand(
                displayName: "reachd's version from Scripts/lib/version.sh",
                executable: URL(fileURLWithPath: "/bin/bash"),
                arguments: [script.path, "--swift", output.appending(path: "BuildVersion+Generated.swift").path],
                outputFilesDirectory: output)
        ]
    }
}
