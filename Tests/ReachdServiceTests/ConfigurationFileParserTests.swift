import Testing
@testable import ReachdService

/// reachd.conf is read as GLib reads key files (and so as NetworkManager.conf is read):
/// `[section]`, `key=value`, `#` and `;` comments, blank lines. Each entry keeps its line,
/// so that reachd can name it; any other line is refused with its number, never skipped.
@Suite("Reading reachd.conf")
struct ConfigurationFileParserTests {
    @Test("sections, keys and values with their lines; comments and blank lines are skipped")
    func entriesWithLines() throws {
        let file = try ConfigurationFile(parsing: """
            # reachd's settings
            ; also a comment

            [reachd]
            settle-ms=500
              log-level = debug\t
            [connectivity]
            uri=http://nmcheck.gnome.org/check_network_status.txt
            response=
            """)
        #expect(file.sections == [.init(name: "reachd", line: 4), .init(name: "connectivity", line: 7)])
        #expect(file.entries == [
            .init(section: "reachd", key: "settle-ms", value: "500", line: 5),
            .init(section: "reachd", key: "log-level", value: "debug", line: 6),
            .init(section: "connectivity", key: "uri", value: "http://nmcheck.gnome.org/check_network_status.txt", line: 8),
            .init(section: "connectivity", key: "response", value: "", line: 9),
        ])
    }

    @Test("a value is the rest of the line: '=' and '#' in it are text, as in GLib's key files")
    func valueIsTheRestOfTheLine() throws {
        let file = try ConfigurationFile(parsing: "[connectivity]\nuri=http://example.org/?a=b#c\nresponse=  online # yes \n")
        #expect(file.entries.map(\.value) == ["http://example.org/?a=b#c", "online # yes"])
    }

    @Test("a section may come back and a key may repeat: every entry is kept, in order")
    func repeatsAreKept() throws {
        let file = try ConfigurationFile(parsing: "[reachd]\nsettle-ms=1\n[kernel]\n[reachd]\nsettle-ms=2\n")
        #expect(file.entries.map(\.value) == ["1", "2"])
        #expect(file.sections.map(\.name) == ["reachd", "kernel", "reachd"])
    }

    @Test("Windows line ends and an empty file are fine")
    func lineEndsAndEmptiness() throws {
        let file = try ConfigurationFile(parsing: "[reachd]\r\nsettle-ms=5\r\n")
        #expect(file.entries == [.init(section: "reachd", key: "settle-ms", value: "5", line: 2)])
        #expect(try ConfigurationFile(parsing: "").entries.isEmpty)
        #expect(try ConfigurationFile(parsing: "\n# nothing\n").sections.isEmpty)
    }

    @Test("a UTF-8 byte order mark before the first line is no part of it (an editor wrote it; it cannot be seen)")
    func byteOrderMarkIsAccepted() throws {
        let file = try ConfigurationFile(bytes: [0xEF, 0xBB, 0xBF] + Array("[reachd]\nsettle-ms=5\n".utf8))
        #expect(file.sections.map(\.name) == ["reachd"])
        #expect(file.entries == [.init(section: "reachd", key: "settle-ms", value: "5", line: 2)])
    }

    @Test("a line that is not a section, a key, a comment or blank is refused with its number",
          arguments: [
            ("[reachd]\nsettle-ms 500\n", 2, "'settle-ms 500'"),
            ("[reachd\n", 1, "'[name]'"),
            ("[]\n", 1, "'[name]'"),
            ("[re]achd]\n", 1, "'[name]'"),
            ("settle-ms=500\n", 1, "before any '[section]'"),
            ("[reachd]\n\n=500\n", 3, "no key"),
            ("[reachd]\nsettle ms=500\n", 2, "'settle ms' is not a key"),
            ("[reachd]\n--settle-ms=500\n", 2, "is not a key"),
          ] as [(String, Int, String)])
    func malformedLine(text: String, line: Int, says: String) {
        #expect {
            try ConfigurationFile(parsing: text)
        } throws: { error in
            let error = error as! ConfigurationFile.SyntaxError
            return error.line == line && error.description.contains(says)
        }
    }

    @Test("reading all: every bad line is kept with its number, the good ones still read; keys under a broken header are skipped")
    func everyBadLineIsKept() {
        let file = ConfigurationFile(readingAll: Array("""
            early=1
            [reachd]
            settle-ms 500
            log-level=debug
            [kernel
            probe-ipv4=198.51.100.7
            [connectivity]
            =x
            uri=http://example.org/
            """.utf8) + [0x0A, 0xFF, 0x0A])
        #expect(file.syntaxErrors.map(\.line) == [1, 3, 5, 8, 10])
        #expect(file.syntaxErrors.map(\.description)[0].contains("before any '[section]'"))
        #expect(file.syntaxErrors.map(\.description)[4] == "the line is not UTF-8 text")
        #expect(file.entries.map(\.key) == ["log-level", "uri"])
        #expect(file.sections.map(\.name) == ["reachd", "connectivity"])
        // The throwing reader throws the first.
        #expect(throws: ConfigurationFile.SyntaxError(line: 1, file.syntaxErrors[0].description)) {
            try ConfigurationFile(parsing: "early=1\n[reachd\n")
        }
    }

    @Test("bytes that are not UTF-8 are refused on their line")
    func notUTF8() {
        #expect(throws: ConfigurationFile.SyntaxError(line: 2, "the line is not UTF-8 text")) {
            try ConfigurationFile(bytes: Array("[reachd]\nsettle-ms=".utf8) + [0xFF, 0x0A])
        }
    }

    @Test("a file larger than 64 KiB is refused, not read")
    func tooLarge() {
        let big = "[reachd]\n" + String(repeating: "# padding padding padding padding padding padding\n", count: 2000)
        #expect(throws: ConfigurationFile.SyntaxError.self) { try ConfigurationFile(parsing: big) }
    }

    @Test("the file is looked for in XDG_CONFIG_HOME (else ~/.config), then in each of XDG_CONFIG_DIRS (else /etc/xdg)")
    func searchPaths() {
        #expect(ConfigurationFile.searchPaths(environment: ["HOME": "/home/ada"])
                == ["/home/ada/.config/reachd/reachd.conf", "/etc/xdg/reachd/reachd.conf"])
        #expect(ConfigurationFile.searchPaths(environment: ["HOME": "/home/ada", "XDG_CONFIG_HOME": "/cfg/",
                                                            "XDG_CONFIG_DIRS": "/opt/xdg:/etc/xdg"])
                == ["/cfg/reachd/reachd.conf", "/opt/xdg/reachd/reachd.conf", "/etc/xdg/reachd/reachd.conf"])
        // Relative and empty entries are ignored, as the XDG specification says.
        #expect(ConfigurationFile.searchPaths(environment: ["HOME": "/root", "XDG_CONFIG_HOME": "cfg", "XDG_CONFIG_DIRS": "::rel"])
                == ["/root/.config/reachd/reachd.conf", "/etc/xdg/reachd/reachd.conf"])
        #expect(ConfigurationFile.searchPaths(environment: [:]) == ["/etc/xdg/reachd/reachd.conf"])
    }
}
