import Foundation
import ReachdTestSupport
import Testing

/// The README is a front door (what reachd is, the two commands, a tour, where to go next) and
/// the rest of the documentation lives in docs/, by reader. A newcomer who follows any link from
/// either lands on a page, and on the heading it names.
@Suite("the documentation")
struct DocumentationTests {
    static let root = Executables.packageRoot
    /// As systemd's README: what a newcomer needs first, and no more.
    static let readmeLineLimit = 250

    @Test("README.md is at most 250 lines: references live in docs/")
    func readmeIsShort() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count - (text.hasSuffix("\n") ? 1 : 0)
        #expect(lines <= Self.readmeLineLimit, """
            README.md has \(lines) lines, more than \(Self.readmeLineLimit): move the detail to the page in docs/ \
            for its reader (docs/README.md lists them) and link to it
            """)
    }

    @Test("every relative link in README.md, docs/ and the examples' READMEs leads to a file, and to a heading there")
    func everyRelativeLinkLeadsSomewhere() throws {
        let pages = try Self.documentationFiles().map { try MarkdownPage(url: $0) }
        #expect(pages.count > 10, "found only \(pages.map(\.url.lastPathComponent)) under \(Self.root.path)")
        var checked = 0
        for page in pages {
            for link in page.relativeLinks {
                checked += 1
                let parts = link.target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let path = parts[0].removingPercentEncoding ?? String(parts[0])
                let anchor = parts.count > 1 ? String(parts[1]) : nil
                let target = path.isEmpty
                    ? page.url : page.url.deletingLastPathComponent().appendingPathComponent(path).standardized
                let at = "\(Self.relativePath(page.url)):\(link.line): (\(link.target))"
                guard FileManager.default.fileExists(atPath: target.path) else {
                    Issue.record("\(at) leads to \(Self.relativePath(target)), which does not exist")
                    continue
                }
                guard let anchor, target.pathExtension == "md" else { continue }
                let anchors = try MarkdownPage(url: target).anchors
                #expect(anchors.contains(anchor), """
                    \(at): \(Self.relativePath(target)) has no heading #\(anchor); its headings: \
                    \(anchors.sorted().joined(separator: " "))
                    """)
            }
        }
        #expect(checked > 50, "only \(checked) relative links found: is the link reader broken?")
    }

    @Test("the README links every page of docs/ by reader, through docs/README.md")
    func everyDocumentationPageIsReachableFromTheReadme() throws {
        // Each page in docs/ is linked from docs/README.md, which the README links: none is orphaned.
        let index = try MarkdownPage(url: Self.root.appendingPathComponent("docs/README.md"))
        let readme = try MarkdownPage(url: Self.root.appendingPathComponent("README.md"))
        #expect(readme.relativeLinks.contains { $0.target == "docs/README.md" }, "README.md does not link docs/README.md")
        let linked = Set(index.relativeLinks.map {
            index.url.deletingLastPathComponent()
                .appendingPathComponent(String($0.target.split(separator: "#")[0])).standardized.path
        })
        for page in try Self.documentationFiles() where page.path.hasPrefix(Self.root.appendingPathComponent("docs").path + "/") {
            guard page.lastPathComponent != "README.md" || page.deletingLastPathComponent().lastPathComponent != "docs" else { continue }
            #expect(linked.contains(page.standardized.path), "docs/README.md does not link \(Self.relativePath(page))")
        }
    }

    @Test("the link reader reads links and headings as GitHub does")
    func linkReaderMatchesGitHub() {
        #expect(MarkdownPage.slug("The D-Bus contract (interface version 3)") == "the-d-bus-contract-interface-version-3")
        #expect(MarkdownPage.slug("reachd's own connectivity check (where NetworkManager does not check)")
                == "reachds-own-connectivity-check-where-networkmanager-does-not-check")
        #expect(MarkdownPage.slug("reachctl wait, beside nm-online") == "reachctl-wait-beside-nm-online")
        #expect(MarkdownPage.slug("See [the page](x.md) now") == "see-the-page-now")
        #expect(MarkdownPage.headingText(MarkdownPage.codeSpans(in: "## `reachctl wait`, beside", keepingText: true))
                == "reachctl wait, beside")
        #expect(MarkdownPage.linkTargets(MarkdownPage.codeSpans(in: "see `[a](no.md)` and [b](yes.md#x \"t\")", keepingText: false))
                == ["yes.md#x"])
        #expect(MarkdownPage.codeSpans(in: "a ```` ```console ```` b", keepingText: false) == "a  b")
        #expect(MarkdownPage.isRelative("docs/x.md") && MarkdownPage.isRelative("#anchor"))
        #expect(!MarkdownPage.isRelative("https://example.org") && !MarkdownPage.isRelative("mailto:a@b"))
    }

    /// README.md, every Markdown file under docs/, and each example's README.md.
    /// The README's generated benchmark rows for the binaries' sizes: the figure for each name.
    static func tableSizes(in readme: String) -> [String: String] {
        var sizes: [String: String] = [:]
        for line in readme.split(separator: "\n") where line.hasPrefix("| installed size, MB") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count > 1, let name = ["reachctl", "reachd"].first(where: { cells[0].contains(", \($0) stripped") }) else { continue }
            sizes[name] = cells[1]
        }
        return sizes
    }

    /// issue 33: install.md and benchmarks.md kept reachctl's and the .deb's sizes of an older
    /// build after the table had moved on. A size of a binary or package in prose ("reachctl
    /// 14.8 MB", "the `.deb` 6.3 MB", "reachd 8.37 MB against 6") is the README's table's, or is
    /// not given; the dated history of benchmarks.md keeps the figures of its day.
    @Test("a size of reachd, reachctl or a package in the prose of README.md and docs/ is the one in the README's benchmark table")
    func sizesInProseAreTheTables() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let sizes = Self.tableSizes(in: readme)
        // One row: reachctl is a link to reachd (one program, issue 45), so its size is reachd's.
        #expect(sizes.keys.sorted() == ["reachd"], "the README's table has no installed-size row for reachd: \(sizes)")
        let size = /(?<name>reachd-gio-module|reachctl|reachd|\.deb)`?( package)?( stripped)?,? (?<figure>[0-9]+(\.[0-9]+)?) ?(MB|kB|KB|MiB|against)/
        for url in try Self.documentationFiles() {
            var history = false
            let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            // A line with the line before it, so that a figure wrapped onto the next line is read too.
            for (number, line) in lines.enumerated() {
                if line.hasPrefix("#") { history = line.hasPrefix("## What changed on the way here") }
                // The table's own rows are made by Scripts/bench.
                if history || line.hasPrefix("|") { continue }
                let before = number > 0 && !lines[number - 1].hasPrefix("|") ? lines[number - 1] : ""
                let joined = "\(before) \(line)"
                // Each match once: at the line where it ends.
                let start = joined.index(joined.startIndex, offsetBy: before.count + 1)
                for match in joined.matches(of: size) where match.range.upperBound > start {
                    let name = String(match.output.name), figure = String(match.output.figure)
                    let table = sizes[name].map { "the README's table says \($0)" } ?? "the README's table has no such row"
                    #expect(sizes[name] == figure,
                            "\(Self.relativePath(url)):\(number + 1): \(name) \(figure): \(table); give the table's figure or none")
                }
            }
        }
    }

    static func documentationFiles() throws -> [URL] {
        var files = [root.appendingPathComponent("README.md")]
        for folder in ["docs", "examples"] {
            let base = root.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else {
                throw TestFailure("cannot read \(base.path)")
            }
            for case let url as URL in walker where url.pathExtension == "md" {
                // The examples' build folders hold their dependencies' Markdown, which is not ours.
                if url.path.contains("/.build") { continue }
                if folder == "examples", url.lastPathComponent != "README.md" { continue }
                files.append(url)
            }
        }
        return files.sorted { $0.path < $1.path }
    }

    static func relativePath(_ url: URL) -> String {
        let base = root.standardized.path + "/"
        let path = url.standardized.path
        return path.hasPrefix(base) ? String(path.dropFirst(base.count)) : path
    }
}
