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
