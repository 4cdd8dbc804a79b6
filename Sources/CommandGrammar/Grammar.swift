/// A program's command line declared once: its commands, each command's options and arguments.
/// Parsing (`Tool.read`), `--help` (`Tool.help`) and the shell completions (`Tool.completionScript`)
/// all come from this one declaration, so they cannot drift apart.
///
/// reachctl declared its command line through swift-argument-parser until issue 45: that package
/// brought FoundationEssentials and the regex modules along (4.5 of reachctl's 16.5 MB stripped),
/// for a grammar of five commands and fifteen options. This is the part of it reachctl uses.
public struct Tool: Sendable {
    public var name: String
    public var abstract: String
    public var discussion: String
    public var version: String
    public var commands: [Command]
    /// The command that runs when the first word names none (`reachctl` is `reachctl status`).
    public var defaultCommand: String

    public init(name: String, abstract: String, discussion: String, version: String, commands: [Command], defaultCommand: String) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.version = version
        self.commands = commands
        self.defaultCommand = defaultCommand
    }

    /// The command words, `help` last: what a mistyped command is told.
    public var commandWords: [String] { commands.map(\.name) + ["help"] }

    /// What a word in the command's place that names none is told.
    public func unknownCommand(_ word: String) -> String {
        "unknown command '\(word)'; the commands are \(commandWords.joined(separator: ", "))"
    }

    public func command(named name: String) -> Command? { commands.first { $0.name == name } }
}

/// One command: `reachctl wait`.
public struct Command: Sendable {
    public var name: String
    public var abstract: String
    public var discussion: String
    public var arguments: [Positional]
    public var options: [Option]

    public init(name: String, abstract: String, discussion: String, arguments: [Positional] = [], options: [Option]) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.arguments = arguments
        self.options = options
    }

    /// The options a command takes, `--version` and `--help` last, as its help lists them.
    public var allOptions: [Option] { options + Option.standard }

    func option(long: String) -> Option? { allOptions.first { $0.long == long } }
    func option(short: Character) -> Option? { allOptions.first { $0.short == short } }
}

/// A positional argument, required: `reachctl host <host>`.
public struct Positional: Sendable {
    public var name: String
    public var help: String

    public init(_ name: String, help: String) {
        self.name = name
        self.help = help
    }
}

/// An option: a flag (`--json`) or one that takes a value (`--level <level>`).
public struct Option: Sendable {
    /// How a shell completes the option's value.
    public enum Completion: Sendable, Equatable {
        case values([String])
        /// A command whose output lines are the candidates (`ls /sys/class/net`).
        case shellCommand(String)
    }

    public var long: String
    public var short: Character?
    /// nil for a flag; else the word in `--level <level>`.
    public var valueName: String?
    public var help: String
    /// As `--help` shows it: `(default: 30)`.
    public var defaultValue: String?
    /// The only values the option takes, checked while parsing and shown as `(values: …)`.
    public var allowedValues: [String]?
    public var completion: Completion?
    /// Given more than once, every value counts (`--host a --host b`); otherwise the last one does.
    public var isRepeating: Bool
    /// The next word is the value whatever it looks like: `--timeout -1` is a value (out of
    /// range, and said so), not a missing one.
    public var takesAnyWord: Bool

    public static func flag(_ long: String, short: Character? = nil, help: String) -> Option {
        Option(long: long, short: short, valueName: nil, help: help, defaultValue: nil, allowedValues: nil,
               completion: nil, isRepeating: false, takesAnyWord: false)
    }

    public static func value(_ long: String, short: Character? = nil, name: String? = nil, help: String, default defaultValue: String? = nil,
                             allowed: [String]? = nil, completion: Completion? = nil,
                             repeating: Bool = false, takesAnyWord: Bool = false) -> Option {
        Option(long: long, short: short, valueName: name ?? long, help: help, defaultValue: defaultValue, allowedValues: allowed,
               completion: completion ?? allowed.map(Completion.values), isRepeating: repeating, takesAnyWord: takesAnyWord)
    }

    public var isFlag: Bool { valueName == nil }

    /// `-i`, `--interface`: what a user may type for it.
    var words: [String] { (short.map { ["-\($0)"] } ?? []) + ["--\(long)"] }

    /// `-i, --interface <interface>`, as help and usage errors show it.
    var label: String {
        let names = (short.map { "-\($0), " } ?? "") + "--\(long)"
        return valueName.map { "\(names) <\($0)>" } ?? names
    }

    /// `--interface <interface>`, as a usage line shows it.
    var synopsis: String { valueName.map { "--\(long) <\($0)>" } ?? "--\(long)" }

    static let version = Option.flag("version", help: "Show the version.")
    static let help = Option.flag("help", short: "h", help: "Show help information.")
    public static let standard = [version, help]
}
