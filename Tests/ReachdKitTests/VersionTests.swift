import Foundation
import ReachdTestSupport
import Testing

/// One version, everywhere a user or an administrator looks for it: both executables'
/// `--version`, the Debian package's Version field and both manual pages' footers show the
/// string `Scripts/lib/version.sh` makes from `VERSION` and the commit.
@Suite("one version everywhere", .timeLimit(.minutes(20)))
struct VersionTests {
    /// What every place must show: the release in VERSION, plus +gitDATE.HASH from a checkout.
    static func expectedVersion() async throws -> String {
        let script = Executables.packageRoot.appendingPathComponent("Scripts/lib/version.sh").path
        let version = try await runToolChecked(script, []).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let release = try String(contentsOf: Executables.packageRoot.appendingPathComponent("VERSION"), encoding: .utf8)
            .split(separator: "\n").first.map(String.init) ?? ""
        #expect(version == release || version.hasPrefix("\(release)+git"), "\(version) builds on VERSION's \(release)")
        return version
    }

    @Test("reachd --version and reachctl --version print the same version and exit 0, without a bus",
          arguments: [("reachd", Executables.reachd), ("reachctl", Executables.reachctl)])
    func executablesPrintTheVersion(name: String, executable: String) async throws {
        let expected = try await Self.expectedVersion()
        let result = try await runTool(executable, ["--version"], environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"])
        #expect(result.status == 0, "\(result.transcript)")
        #expect(result.standardOutput == "\(name) \(expected)\n", "\(result.transcript)")
    }

    @Test("the package's Version, its binaries and its manual pages agree with Scripts/lib/version.sh")
    func packageBinariesAndPagesAgree() async throws {
        let expected = try await Self.expectedVersion()
        let deb = try await PackageTests.package.value
        let field = try await runToolChecked("dpkg-deb", ["--field", deb, "Version"]).standardOutput
        #expect(field == "\(expected)\n", "the package's Version: \(field)")

        let tree = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-version-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: tree) }
        try await runToolChecked("dpkg-deb", ["--extract", deb, tree])
        for name in ["reachd", "reachctl"] {
            let printed = try await runToolChecked("\(tree)/usr/bin/\(name)", ["--version"]).standardOutput
            #expect(printed == "\(name) \(expected)\n", "the packaged \(name) --version: \(printed)")
        }
        for page in ["man1/reachctl.1.gz", "man8/reachd.8.gz"] {
            let rendered = try await runToolChecked("man", ["-l", "\(tree)/usr/share/man/\(page)"],
                                                    environment: ["MANPAGER": "cat", "MANWIDTH": "100", "LC_ALL": "C"]).standardOutput
            let footer = rendered.split(separator: "\n").last(where: { !$0.allSatisfy(\.isWhitespace) }).map(String.init) ?? ""
            #expect(footer.contains(expected), "\(page)'s footer shows the version: '\(footer)'")
        }
    }
}
