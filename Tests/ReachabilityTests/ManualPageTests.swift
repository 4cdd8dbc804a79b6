import Foundation
import TestSupport
import Testing

/// The manual pages say what the programs do: every option a page documents is one the
/// program takes, and every option the program takes is documented. reachctl's page is
/// generated from its argument parser when it is installed (PackageTests check the installed
/// one); reachd's is written by hand, so it is held to reachd here.
@Suite("Manual pages", .timeLimit(.minutes(1)))
struct ManualPageTests {
    static let reachdPage = Executables.packageRoot.appendingPathComponent("man/reachd.8").path

    /// `--name` for each option a page or a help text mentions (roff writes `\-\-name`).
    static func options(in text: String) -> Set<String> {
        let plain = text.replacingOccurrences(of: "\\-", with: "-")
        let pattern = try! NSRegularExpression(pattern: "(?<![\\w-])--[a-z][a-z0-9-]*[a-z0-9]")
        let range = NSRange(plain.startIndex..., in: plain)
        return Set(pattern.matches(in: plain, range: range).map { String(plain[Range($0.range, in: plain)!]) })
    }

    /// A value each option of reachd accepts, so `reachd OPTION VALUE --help` reaches `--help`.
    static let sampleValues = [
        "--system-bus-address": "unix:path=/nonexistent", "--settle-ms": "10", "--max-monitors-per-client": "2",
        "--max-monitors": "3", "--log-level": "debug", "--probe-ipv4": "198.51.100.7", "--probe-ipv6": "3fff::7",
        "--route-events": "all", "--override-delay-ms": "500",
    ]

    @Test("every option reachd(8) documents is one reachd accepts, and every option reachd takes is documented")
    func reachdPageMatchesReachd() async throws {
        let page = try String(contentsOfFile: Self.reachdPage, encoding: .utf8)
        let documented = Self.options(in: page).subtracting(["--share", "--talk-name", "--user"])  // Flatpak's, in SANDBOXED APPS
        #expect(documented.contains("--replace") && documented.contains("--help"), "\(documented)")
        for option in documented.sorted() {
            let arguments = [option] + (Self.sampleValues[option].map { [$0] } ?? []) + (option == "--help" ? [] : ["--help"])
            let result = try await runTool(Executables.reachd, arguments)
            #expect(result.status == 0 && result.standardOutput.contains("USAGE: reachd"),
                    "reachd(8) documents \(option), which reachd does not take: \(result.transcript)")
        }
        let help = try await runToolChecked(Executables.reachd, ["--help"])
        #expect(Self.options(in: help.standardOutput).subtracting(documented).isEmpty,
                "reachd --help lists options reachd(8) does not document: \(Self.options(in: help.standardOutput).subtracting(documented))")
        let unknown = try await runTool(Executables.reachd, ["--no-such-option"])
        #expect(unknown.status == 64, "an option reachd does not take is refused, so the check above means something")
    }

    @Test("man -l renders reachd(8) without a warning")
    func reachdPageRenders() async throws {
        let result = try await runTool("man", ["--warnings", "-l", Self.reachdPage],
                                       environment: ["MANPAGER": "cat", "MANWIDTH": "80", "LC_ALL": "C.UTF-8"])
        #expect(result.succeeded && result.standardError.isEmpty, "\(result.transcript)")
        #expect(result.standardOutput.contains("reachd - publish network reachability on the session bus"), "\(result.transcript)")
    }
}
