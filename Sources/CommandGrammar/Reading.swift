/// What a command line asks for, read against a `Tool`'s declaration.
public enum Reading: Sendable, Equatable {
    /// Run this command.
    case run(Invocation)
    /// Show this command's help, or the tool's where nil (`reachctl --help`, `reachctl help`).
    case help(command: String?)
    case version
    /// The tool's declaration as swift-argument-parser's `--experimental-dump-help` JSON, which
    /// its `generate-manual` makes the manual page from.
    case manualDescription
    /// `--generate-completion-script bash|zsh|fish`.
    case completionScript(shell: String)
}

/// One command with the options and arguments it was given.
public struct Invocation: Sendable, Equatable {
    public var command: String
    /// False where the command is the default one because the first word named none.
    public var commandWasGiven: Bool
    var flags: Set<String> = []
    var values: [String: [String]] = [:]
    public var arguments: [String] = []

    public init(command: String, commandWasGiven: Bool) {
        self.command = command
        self.commandWasGiven = commandWasGiven
    }

    public func flag(_ long: String) -> Bool { flags.contains(long) }
    /// The option's value, the last one where it was given more than once.
    public func value(_ long: String) -> String? { values[long]?.last }
    /// Every value of a repeating option, in order.
    public func values(_ long: String) -> [String] { values[long] ?? [] }
}

/// A command line that cannot be read, or a command's values that cannot be used: exit 64 with
/// the message, the usage line of the command it concerns, and where to read more.
public struct UsageError: Error, Sendable, Equatable {
    public var message: String
    /// The command whose usage follows; nil for the tool's (no command word was given).
    public var command: String?
    /// The option the message is about, whose help follows it.
    var option: String?

    public init(_ message: String, command: String?) {
        self.message = message
        self.command = command
    }

    init(_ message: String, command: String?, option: String?) {
        self.init(message, command: command)
        self.option = option
    }

    /// For a command's own check of its values (a range, a contradiction).
    public init(_ message: String, for invocation: Invocation) {
        self.init(message, command: invocation.commandWasGiven ? invocation.command : nil)
    }
}

extension Tool {
    /// The words after the program's name, read as swift-argument-parser read reachctl's: options
    /// in any order after the command, `--name=value` or `--name value`, short flags together
    /// (`-4q`), `--` before arguments that start with a dash; `--help` or `--version` anywhere wins.
    public func read(_ words: [String]) throws(UsageError) -> Reading {
        guard let first = words.first else { return .run(Invocation(command: defaultCommand, commandWasGiven: false)) }
        switch first {
        case "--experimental-dump-help":
            return .manualDescription
        case "--generate-completion-script":
            guard words.count == 2, let shell = words.last, ["bash", "zsh", "fish"].contains(shell) else {
                throw UsageError("--generate-completion-script takes one of bash, zsh or fish", command: nil)
            }
            return .completionScript(shell: shell)
        case "help":
            guard let word = words.dropFirst().first else { return .help(command: nil) }
            guard command(named: word) != nil, words.count == 2 else {
                throw UsageError(unknownCommand(word), command: nil)
            }
            return .help(command: word)
        default:
            break
        }
        let given = command(named: first)
        let command = given ?? self.command(named: defaultCommand)!
        let rest = given == nil ? words[...] : words.dropFirst()
        let options = rest.prefix { $0 != "--" }
        if options.contains("--help") || options.contains("-h") { return .help(command: given?.name) }
        if options.contains("--version") { return .version }
        return .run(try command.read(rest, given: given != nil))
    }
}

extension Command {
    func read(_ words: ArraySlice<String>, given: Bool) throws(UsageError) -> Invocation {
        var invocation = Invocation(command: name, commandWasGiven: given)
        let usageCommand = given ? name : nil
        var words = words
        var argumentsOnly = false
        while let word = words.popFirst() {
            if argumentsOnly || word == "-" || !word.hasPrefix("-") {
                invocation.arguments.append(word)
            } else if word == "--" {
                argumentsOnly = true
            } else if word.hasPrefix("--") {
                let body = word.dropFirst(2)
                let long = String(body.prefix { $0 != "=" })
                guard let option = option(long: long) else {
                    throw UsageError("unknown option '--\(long)'", command: usageCommand)
                }
                let attached = body.contains("=") ? String(body.drop { $0 != "=" }.dropFirst()) : nil
                if option.isFlag, attached != nil {
                    throw UsageError("'--\(long)' takes no value", command: usageCommand, option: long)
                }
                try take(option, attached: attached, from: &words, into: &invocation, usageCommand: usageCommand)
            } else {
                let letters = Array(word.dropFirst())
                for (index, letter) in letters.enumerated() {
                    guard let option = option(short: letter) else {
                        throw UsageError("unknown option '-\(letter)'", command: usageCommand)
                    }
                    if !option.isFlag && index != letters.count - 1 {
                        throw UsageError("'-\(letter)' takes a value, so it comes last in '\(word)'", command: usageCommand, option: option.long)
                    }
                    try take(option, attached: nil, from: &words, into: &invocation, usageCommand: usageCommand)
                }
            }
        }
        if invocation.arguments.count < arguments.count {
            let missing = arguments[invocation.arguments.count]
            throw UsageError("missing expected argument '<\(missing.name)>'", command: usageCommand)
        }
        if let extra = invocation.arguments.dropFirst(arguments.count).first {
            throw UsageError("unexpected argument '\(extra)'", command: usageCommand)
        }
        return invocation
    }

    private func take(_ option: Option, attached: String?, from words: inout ArraySlice<String>,
                      into invocation: inout Invocation, usageCommand: String?) throws(UsageError) {
        guard !option.isFlag else {
            invocation.flags.insert(option.long)
            return
        }
        let value: String
        if let attached {
            value = attached
        } else if let next = words.first, option.takesAnyWord || !next.hasPrefix("-") || next == "-" {
            value = next
            words.removeFirst()
        } else {
            throw UsageError("missing value for '\(option.synopsis)'", command: usageCommand, option: option.long)
        }
        if let allowed = option.allowedValues, !allowed.contains(value) {
            throw UsageError("the value '\(value)' is invalid for '\(option.synopsis)'; it is one of \(allowed.joined(separator: ", "))",
                             command: usageCommand, option: option.long)
        }
        invocation.values[option.long, default: []].append(value)
    }
}
