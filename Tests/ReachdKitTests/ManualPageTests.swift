import Foundation
import ReachdTestSupport
import Testing

/// The manual pages say what the programs do, as `man` shows them once `Scripts/install` has put
/// them in place: every option a page documents is one the program takes, and every option the
/// program takes is documented; reachctl(1) states its exit statuses once and has the sections
/// a reader looks for; both pages name their files under the prefix they were installed with
/// and carry the version in their footers, and `man` renders them without a warning.
///
/// reachctl's page is generated from its command line's declaration at install (PackageTests check its
/// options); reachd's is written by hand, so it is held to reachd here.
@Suite("Manual pages", .timeLimit(.minutes(25)))
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
        "--connectivity-uri": "http://example.org/check", "--connectivity-response": "online",
        "--connectivity-interval": "60", "--connectivity-timeout": "5", "--config": "/nonexistent/reachd.conf",
        "--log-target": "auto",
    ]

    /// Other programs' options the page quotes: Flatpak's (SANDBOXED APPS), systemctl's and
    /// journalctl's `--user`, Scripts/install's `--uninstall`.
    static let othersOptions: Set<String> = ["--share", "--talk-name", "--user", "--uninstall"]

    @Test("every option reachd(8) documents is one reachd accepts, and every option reachd takes is documented")
    func reachdPageMatchesReachd() async throws {
        let page = try String(contentsOfFile: Self.reachdPage, encoding: .utf8)
        let documented = Self.options(in: page).subtracting(Self.othersOptions)
        #expect(documented.isSuperset(of: ["--replace", "--help", "--version"]), "\(documented)")
        for option in documented.sorted() where option != "--version" {
            let arguments = [option] + (Self.sampleValues[option].map { [$0] } ?? []) + (option == "--help" ? [] : ["--help"])
            let result = try await runTool(Executables.reachd, arguments)
            #expect(result.status == 0 && result.standardOutput.contains("USAGE: reachd"),
                    "reachd(8) documents \(option), which reachd does not take: \(result.transcript)")
        }
        let version = try await runTool(Executables.reachd, ["--version"])
        #expect(version.status == 0 && version.standardOutput.hasPrefix("reachd "), "\(version.transcript)")
        let help = try await runToolChecked(Executables.reachd, ["--help"])
        #expect(Self.options(in: help.standardOutput).subtracting(documented).isEmpty,
                "reachd --help lists options reachd(8) does not document: \(Self.options(in: help.standardOutput).subtracting(documented))")
        let unknown = try await runTool(Executables.reachd, ["--no-such-option"])
        #expect(unknown.status == 64, "an option reachd does not take is refused, so the checks above mean something")
    }

    // MARK: The pages as installed

    /// Installed once for these tests, with a prefix other than /usr so that a page naming
    /// /usr where it means its prefix is caught. Beside the build, replacing the last run's,
    /// so runs leave nothing in /tmp.
    static let prefix = "/opt/reachd"
    static let installed = ScratchInstall.installOnce(prefix: prefix, folder: "pages")

    /// `man -l` of an installed page at 80 columns: what it printed, and its warnings.
    static func render(_ page: String) async throws -> ToolResult {
        let destination = try await installed.value
        return try await runTool("man", ["--warnings", "-l", "\(destination)\(prefix)/share/man/\(page)"],
                                 environment: ["MANPAGER": "cat", "MANWIDTH": "80", "LC_ALL": "C.UTF-8"])
    }

    /// The rendered page's sections: each heading (a line at the left margin) and its lines.
    static func sections(of rendered: String) -> [(heading: String, lines: [String])] {
        var sections: [(heading: String, lines: [String])] = []
        for line in rendered.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if let first = line.first, !first.isWhitespace, line == line.uppercased() {
                sections.append((line, []))
            } else if !sections.isEmpty {
                sections[sections.count - 1].lines.append(line)
            }
        }
        return sections
    }

    static func text(of heading: String, in rendered: String) -> String {
        sections(of: rendered).filter { $0.heading == heading }.flatMap(\.lines).joined(separator: "\n")
    }

    /// The paths a FILES section names, as absolute paths (wrapped words joined).
    static func paths(inFiles section: String) -> [String] {
        section.split(whereSeparator: \.isWhitespace).map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ",.;()")) }
            .filter { $0.hasPrefix("/") }
    }

    @Test("man -l renders both installed pages without a warning", arguments: ["man1/reachctl.1.gz", "man8/reachd.8.gz"])
    func installedPagesRender(page: String) async throws {
        let result = try await Self.render(page)
        #expect(result.succeeded && result.standardError.isEmpty, "\(result.transcript)")
        #expect(result.standardOutput.contains("NAME") && result.standardOutput.contains("SYNOPSIS"), "\(result.transcript)")
    }

    @Test("reachctl(1) states reachctl's exit statuses once, and has ENVIRONMENT, FILES, EXAMPLES and SEE ALSO")
    func reachctlPageSections() async throws {
        let rendered = try await Self.render("man1/reachctl.1.gz").standardOutput
        let headings = Self.sections(of: rendered).map(\.heading)
        for heading in ["NAME", "SYNOPSIS", "DESCRIPTION", "ENVIRONMENT", "FILES", "EXIT STATUS", "EXAMPLES", "SEE ALSO"] {
            #expect(headings.filter { $0 == heading }.count == 1, "\(heading) in \(headings)")
        }
        // In mdoc's order, so a reader finds each where man pages keep it.
        let order = ["DESCRIPTION", "ENVIRONMENT", "FILES", "EXIT STATUS", "EXAMPLES", "SEE ALSO"].compactMap { headings.firstIndex(of: $0) }
        #expect(order == order.sorted() && order.count == 6, "\(headings)")
        // Said once: the table each subcommand's --help carries is not repeated in the text
        // (where it would run into the paragraphs, so words are compared, not lines).
        let words = rendered.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.components(separatedBy: "EXIT STATUS").count - 1 == 1, "\(rendered)")

        // The statuses are reachctl's own, as its --help lists them.
        let help = try await runToolChecked(Executables.reachctl, ["--help"]).standardOutput
        let helpTable = help.components(separatedBy: "EXIT STATUS\n").dropFirst().first?.components(separatedBy: "\n\n").first ?? ""
        let helpCodes = helpTable.split(separator: "\n").filter { $0.first?.isWhitespace ?? false }
            .compactMap { $0.split(separator: " ").first.flatMap { Int($0) } }
        let pageCodes = Self.text(of: "EXIT STATUS", in: rendered).split(separator: "\n")
            .compactMap { $0.split(separator: " ").first.flatMap { Int($0) } }
        #expect(!helpCodes.isEmpty && pageCodes == helpCodes, "page \(pageCodes), reachctl --help \(helpCodes)")

        let environment = Self.text(of: "ENVIRONMENT", in: rendered)
        for variable in ["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "LC_ALL", "LC_MESSAGES", "LANG"] {
            #expect(environment.contains(variable), "ENVIRONMENT names \(variable)")
        }
        let seeAlso = Self.text(of: "SEE ALSO", in: rendered)
        for page in ["reachd(8)", "busctl(1)", "gdbus(1)", "nm-online(1)", "systemd-networkd-wait-online(8)"] {
            #expect(seeAlso.contains(page), "SEE ALSO names \(page): \(seeAlso)")
        }
        #expect(Self.text(of: "EXAMPLES", in: rendered).contains("reachctl wait"))
    }

    /// Files a page names as they are whatever the prefix, which Scripts/install does not install:
    /// the system instance's configuration file (reachd --system reads only that one).
    static let filesOutsideThePrefix: Set<String> = ["/etc/reachd/reachd.conf"]

    @Test("both pages name their files under the prefix given to Scripts/install, and those files are installed",
          arguments: ["man1/reachctl.1.gz", "man8/reachd.8.gz"])
    func pagesNameFilesUnderThePrefix(page: String) async throws {
        let destination = try await Self.installed.value
        let files = Self.text(of: "FILES", in: try await Self.render(page).standardOutput)
        let paths = Self.paths(inFiles: files)
        #expect(paths.contains("\(Self.prefix)/share/dbus-1/services/io.reachd.Reachability1.service"), "\(files)")
        #expect(paths.contains("\(Self.prefix)/lib/systemd/user/reachd.service"), "\(files)")
        if page.hasPrefix("man8/") {
            // The activation file's folder, as the file's path would not fit 80 columns under /opt/reachd.
            for file in ["lib/systemd/system/reachd.service", "share/dbus-1/system-services/",
                         "share/dbus-1/system.d/io.reachd.Reachability1.conf", "lib/sysusers.d/reachd.conf"] {
                #expect(paths.contains("\(Self.prefix)/\(file)"), "reachd(8) names the system instance's \(file): \(files)")
            }
            #expect(paths.contains("/etc/reachd/reachd.conf"), "\(files)")
        }
        for path in paths where !Self.filesOutsideThePrefix.contains(path) {
            #expect(path.hasPrefix("\(Self.prefix)/"), "\(page) names \(path), not under \(Self.prefix)")
            #expect(FileManager.default.fileExists(atPath: destination + path), "\(page) names \(path), which Scripts/install did not install")
        }
    }

    @Test("both pages' footers carry the version Scripts/lib/version.sh prints, whole at 80 columns",
          arguments: ["man1/reachctl.1.gz", "man8/reachd.8.gz"])
    func footersCarryTheVersion(page: String) async throws {
        let script = Executables.packageRoot.appendingPathComponent("Scripts/lib/version.sh").path
        let version = try await runToolChecked(script, []).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let rendered = try await Self.render(page).standardOutput
        let footer = rendered.split(separator: "\n").last { !$0.allSatisfy(\.isWhitespace) }.map(String.init) ?? ""
        #expect(footer.hasPrefix("reachd \(version) "), "\(page)'s footer: '\(footer)'")
        #expect(footer.count <= 80, "\(page)'s footer: '\(footer)'")
    }
}
