import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// The example outputs shown in README.md and docs/ are what reachd and reachctl print.
/// `Scripts/readme-examples` runs the commands they show (busctl, gdbus, dbus-send, reachctl)
/// against a fixed stand-in laptop on Wi-Fi (python-dbusmock's NetworkManager, reachd in a
/// network namespace of its own) and compares what they print with the generated blocks of
/// every Markdown file that holds one. The example package's block is checked by
/// `ExamplePackageTests`, which builds that package.
@Suite("the documentation's examples", .timeLimit(.minutes(5)))
struct ReadmeExamplesTests {
    @Test("every generated example in README.md and docs/ is what the commands print today, with the reachd and reachctl under test")
    func readmeExamplesAreWhatReachdPrints() async throws {
        // Network namespaces need root; a skipped test would read as a pass.
        guard geteuid() == 0 else {
            throw TestFailure("""
                this test needs root (Scripts/readme-examples runs reachd in a network namespace); \
                run the tests as root, e.g. with sudo -E Scripts/test
                """)
        }
        let script = Executables.packageRoot.appendingPathComponent("Scripts/readme-examples").path
        // Without files, the script checks every Markdown file with a marker, and that each block
        // it makes is marked in one of them. The script installs what it lacks from
        // REACHD_TEST_PACKAGES, or fails saying what is missing.
        let result = try await runTool(script, ["--check"],
                                       environment: ["REACHD": Executables.reachd, "REACHCTL": Executables.reachctl],
                                       timeout: .seconds(240))
        #expect(result.status == 0, """
            the documentation's examples differ from what the commands print (or the stand-in could not be \
            set up); after checking the change is intended, run Scripts/readme-examples --update
            \(result.standardOutput)\(result.standardError)
            """)
    }
}
