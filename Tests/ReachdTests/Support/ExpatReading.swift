import Foundation
import ReachdTestSupport

/// A file or a text as expat reads it, through python3's xml.dom.minidom: the parser
/// gdbus-codegen reads interface files with, and not ours, so it can judge both our files
/// and our parser. Debian's python3 (which python3-dbusmock brings), run isolated (`-I`)
/// so that no PYTHONPATH of another Python leaks in.
struct ExpatReading: Sendable {
    /// A method, signal or property of an interface.
    struct Member: Hashable, Sendable, CustomStringConvertible {
        var kind: String
        var interface: String
        var name: String
        var description: String { "\(kind) \(interface).\(name)" }
    }

    let result: ToolResult

    var isWellFormed: Bool { result.succeeded }
    /// Where and why expat stopped: "PLACE: not well-formed (invalid token): line 14, column 8".
    var error: String { result.standardError.trimmingCharacters(in: .whitespacesAndNewlines) }

    /// The interfaces the document declares, in document order.
    var interfaces: [String] { rows.filter { $0.kind == "interface" }.map(\.interface) }
    /// The methods, signals and properties of every interface.
    var members: [Member] { rows.filter { $0.kind != "interface" } }

    private var rows: [Member] {
        result.standardOutput.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return fields.count == 3 ? Member(kind: fields[0], interface: fields[1], name: fields[2]) : nil
        }
    }

    /// Reads the file at `path`.
    static func file(_ path: String) async throws -> ExpatReading {
        ExpatReading(result: try await runTool("python3", ["-I", "-c", script, "file", path]))
    }

    /// Reads `xml` itself.
    static func text(_ xml: String) async throws -> ExpatReading {
        ExpatReading(result: try await runTool("python3", ["-I", "-c", script, "text", xml]))
    }

    private static let script = """
        import sys, xml.dom.minidom
        kind, source = sys.argv[1], sys.argv[2]
        try:
            document = xml.dom.minidom.parse(source) if kind == "file" else xml.dom.minidom.parseString(source)
        except Exception as error:
            sys.exit(f"{source if kind == 'file' else 'the text'}: {error}")
        for interface in document.getElementsByTagName("interface"):
            name = interface.getAttribute("name")
            print("interface", name, "", sep="\\t")
            for member in interface.childNodes:
                if member.nodeType == member.ELEMENT_NODE and member.tagName in ("method", "signal", "property"):
                    print(member.tagName, name, member.getAttribute("name"), sep="\\t")
        """
}
