import CommandGrammar
import Testing

/// How a command line is read, as a user of reachctl types it: options in any order, `--name=value`,
/// short flags together, `--` before a dashed argument, `--help` anywhere; and what each mistake
/// is told.
@Suite("a command line read against its declaration")
struct ReadingTests {
    static let tool = Tool(
        name: "tool", abstract: "A tool.", discussion: "", version: "tool 1",
        commands: [
            Command(name: "show", abstract: "Show.", discussion: "",
                    options: [.flag("json", help: "JSON."), .value("service", name: "provider", help: "Who.", allowed: ["a", "b"])]),
            Command(name: "wait", abstract: "Wait.", discussion: "",
                    options: [.flag("quiet", short: "q", help: "Quiet."), .flag("ipv4", short: "4", help: "IPv4."),
                              .value("interface", short: "i", help: "An interface.", repeating: true),
                              .value("timeout", help: "Seconds.", default: "30", takesAnyWord: true)]),
            Command(name: "host", abstract: "Host.", discussion: "", arguments: [Positional("host", help: "A host.")], options: []),
        ],
        defaultCommand: "show")

    static func invocation(_ words: [String]) throws -> Invocation {
        guard case .run(let invocation) = try tool.read(words) else { throw UsageError("not a run", command: nil) }
        return invocation
    }

    static func refusal(_ words: [String]) -> UsageError? {
        do {
            _ = try tool.read(words)
            return nil
        } catch {
            return error
        }
    }

    @Test("no command word runs the default command, with its options")
    func defaultCommand() throws {
        let bare = try Self.invocation([])
        #expect(bare.command == "show" && !bare.commandWasGiven)
        let withOption = try Self.invocation(["--json", "--service=b"])
        #expect(withOption.command == "show" && withOption.flag("json") && withOption.value("service") == "b")
    }

    @Test("short flags go together; a repeating option keeps every value; the last value of another wins")
    func shortFlagsAndRepeats() throws {
        let invocation = try Self.invocation(["wait", "-4q", "-i", "eth0", "--interface", "wlan0", "--timeout", "5", "--timeout=7"])
        #expect(invocation.flag("ipv4") && invocation.flag("quiet"))
        #expect(invocation.values("interface") == ["eth0", "wlan0"])
        #expect(invocation.value("timeout") == "7")
    }

    @Test("an option that takes any word takes a negative number; another calls it missing")
    func dashedValues() throws {
        #expect(try Self.invocation(["wait", "--timeout", "-1"]).value("timeout") == "-1")
        #expect(Self.refusal(["wait", "-i", "-q"])?.message == "missing value for '--interface <interface>'")
    }

    @Test("after --, a word with a dash is an argument")
    func terminator() throws {
        #expect(try Self.invocation(["host", "--", "-odd"]).arguments == ["-odd"])
    }

    @Test("--help and --version win wherever they are, before --")
    func helpAndVersion() throws {
        #expect(try Self.tool.read(["wait", "--bogus", "--help"]) == .help(command: "wait"))
        #expect(try Self.tool.read(["--help"]) == .help(command: nil))
        #expect(try Self.tool.read(["help", "host"]) == .help(command: "host"))
        #expect(try Self.tool.read(["host", "--version"]) == .version)
        #expect(try Self.invocation(["host", "--", "--help"]).arguments == ["--help"])
    }

    @Test("each mistake is told in words, with the command it concerns (none where none was given)",
          arguments: [
            (["--bogus"], "unknown option '--bogus'", nil),
            (["wait", "-z"], "unknown option '-z'", "wait"),
            (["show", "--json=yes"], "'--json' takes no value", "show"),
            (["show", "--service", "c"], "the value 'c' is invalid for '--service <provider>'; it is one of a, b", "show"),
            (["host"], "missing expected argument '<host>'", "host"),
            (["host", "a", "b"], "unexpected argument 'b'", "host"),
            (["wait", "-iq", "x"], "'-i' takes a value, so it comes last in '-iq'", "wait"),
            (["help", "nosuch"], "unknown command 'nosuch'; the commands are show, wait, host, help", nil),
          ] as [([String], String, String?)])
    func mistakes(words: [String], message: String, command: String?) {
        let error = Self.refusal(words)
        #expect(error?.message == message)
        #expect(error?.command == command)
    }

    @Test("a usage error shows the usage of its command, or the tool's")
    func usageText() {
        let text = Self.tool.text(of: UsageError("missing expected argument '<host>'", command: "host"))
        #expect(text == """
            tool: missing expected argument '<host>'
            Usage: tool host <host>
              See 'tool host --help' for more information.
            """)
        #expect(Self.tool.text(of: UsageError("x", command: nil)).contains("(commands: show, wait, host, help; show when none is given)"))
    }

    @Test("help wraps at 79 columns and keeps a table's lines as they are")
    func helpLayout() {
        let long = Tool(name: "t", abstract: "A.", discussion: String(repeating: "word ", count: 40) + "\n  0   kept  as   is",
                        version: "t 1", commands: [], defaultCommand: "")
        let lines = long.help(for: nil).split(separator: "\n")
        #expect(lines.allSatisfy { $0.count <= 79 })
        #expect(lines.contains("  0   kept  as   is"))
    }
}
