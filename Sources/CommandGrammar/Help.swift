/// `--help` and usage errors, laid out as swift-argument-parser laid out reachctl's (scripts and
/// the manual tests read them): lines of at most 79 columns, option labels in a 26-column gutter.
extension Tool {
    static let width = 79
    static let gutter = 26

    /// `reachctl --help`, or a command's (`reachctl wait --help`), ending in a newline.
    public func help(for commandName: String?) -> String {
        guard let command = commandName.flatMap(command(named:)) else { return toolHelp }
        var sections = [Self.wrap("OVERVIEW: " + command.abstract), Self.wrap(command.discussion),
                        "USAGE: " + usage(of: command)]
        if !command.arguments.isEmpty {
            sections.append((["ARGUMENTS:"] + command.arguments.map { Self.entry("<\($0.name)>", $0.help) }).joined(separator: "\n"))
        }
        sections.append((["OPTIONS:"] + command.allOptions.map { Self.entry($0.label, Self.helpText(of: $0)) }).joined(separator: "\n"))
        return sections.joined(separator: "\n\n") + "\n\n"
    }

    private var toolHelp: String {
        let commandList = commands.map { Self.entry($0.name == defaultCommand ? "\($0.name) (default)" : $0.name, $0.abstract) }
        return [Self.wrap("OVERVIEW: " + abstract), Self.wrap(discussion), "USAGE: \(name) <subcommand>",
                (["OPTIONS:"] + Option.standard.map { Self.entry($0.label, $0.help) }).joined(separator: "\n"),
                (["SUBCOMMANDS:"] + commandList).joined(separator: "\n"),
                "  See '\(name) help <subcommand>' for detailed help."].joined(separator: "\n\n") + "\n"
    }

    /// `reachctl host <host> [--watch] [--json] [--service <provider>]`; `reachctl wait <options>`
    /// where every option would not fit one line.
    func usage(of command: Command) -> String {
        let words = [name, command.name] + command.arguments.map { "<\($0.name)>" }
        let full = (words + command.options.map { "[\($0.synopsis)\($0.isRepeating ? " ..." : "")]" }).joined(separator: " ")
        return "USAGE: ".count + full.count <= Self.width ? full : (words + ["<options>"]).joined(separator: " ")
    }

    /// The lines reachctl prints for a usage error: the message, the option's help where it is
    /// about one, and the usage of the command it concerns (the tool's where none was given).
    public func text(of error: UsageError) -> String {
        var lines = ["\(name): \(error.message)"]
        if let command = error.command.flatMap(command(named:)) {
            if let option = error.option.flatMap(command.option(long:)) {
                lines.append("Help:  \(option.label)  \(Self.helpText(of: option))")
            }
            lines.append("Usage: \(usage(of: command))")
            lines.append("  See '\(name) \(command.name) --help' for more information.")
        } else {
            lines.append("Usage: \(name) [<command>] [<options>]  (commands: \(commandWords.joined(separator: ", ")); "
                         + "\(defaultCommand) when none is given)")
            lines.append("  See '\(name) --help' for more information.")
        }
        return lines.joined(separator: "\n")
    }

    static func helpText(of option: Option) -> String {
        var text = option.help
        if let value = option.defaultValue { text += " (default: \(value))" }
        if let values = option.allowedValues { text += " (values: \(values.joined(separator: ", ")))" }
        return text
    }

    /// `  --level <level>         link, routable, …`: the label in the gutter, or on a line of its
    /// own where it does not fit, and the text wrapped under the gutter.
    static func entry(_ label: String, _ text: String) -> String {
        let head = "  " + label
        let wrapped = wrap(text, width: width - gutter).split(separator: "\n", omittingEmptySubsequences: false)
            .map { String(repeating: " ", count: gutter) + $0 }
        guard head.count <= gutter - 2, let first = wrapped.first else { return ([head] + wrapped).joined(separator: "\n") }
        let firstLine = head + String(repeating: " ", count: gutter - head.count) + first.dropFirst(gutter)
        return ([firstLine] + wrapped.dropFirst()).joined(separator: "\n")
    }

    /// Each line of `text` broken at spaces to at most `width` columns; lines already short
    /// enough (a table's) stay as they are.
    static func wrap(_ text: String, width: Int = width) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard line.count > width else { return String(line) }
            var lines: [String] = []
            var current = ""
            for word in line.split(separator: " ") {
                if !current.isEmpty && current.count + 1 + word.count > width {
                    lines.append(current)
                    current = String(word)
                } else {
                    current += (current.isEmpty ? "" : " ") + word
                }
            }
            lines.append(current)
            return lines.joined(separator: "\n")
        }.joined(separator: "\n")
    }
}
