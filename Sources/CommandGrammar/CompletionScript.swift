/// The shell completions `--generate-completion-script` prints, made from the declaration: each
/// shell offers the commands, each command's options, and the values an option declares (a list,
/// or a command's output lines, as `-i` offers `ls /sys/class/net`). Where no command word is
/// given the default command's options are offered, as the default command takes them.
extension Tool {
    public func completionScript(for shell: String) -> String {
        switch shell {
        case "zsh": zshScript
        case "fish": fishScript
        default: bashScript
        }
    }

    private var header: String { "completions for \(name), made by `\(name) --generate-completion-script`" }

    private func optionWords(_ command: Command) -> [String] {
        command.allOptions.flatMap(\.words)
    }

    // MARK: bash

    private var bashScript: String {
        var valueCases: [String] = []
        var silentCases: [String] = []
        for command in commands {
            let patterns = command.name == defaultCommand ? ["\(command.name)", ""] : [command.name]
            for option in command.options where !option.isFlag {
                let pattern = patterns.flatMap { name in option.words.map { "\(name):\($0)" } }.joined(separator: "|")
                switch option.completion {
                case .values(let values)?:
                    valueCases.append("    \(pattern)) COMPREPLY=($(compgen -W '\(values.joined(separator: " "))' -- \"$cur\")); return ;;")
                case .shellCommand(let shellCommand)?:
                    valueCases.append("    \(pattern)) COMPREPLY=($(compgen -W \"$(\(shellCommand) 2>/dev/null)\" -- \"$cur\")); return ;;")
                case nil:
                    silentCases.append(pattern)
                }
            }
        }
        let defaultOptions = command(named: defaultCommand).map(optionWords) ?? []
        let optionCases = commands.map { "    \($0.name)) words='\(optionWords($0).joined(separator: " "))' ;;" }
        return """
            # \(header)
            _\(name)() {
                local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" command="" word words
                for word in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
                    case "$word" in
                    \(commandWords.joined(separator: "|"))) command="$word"; break ;;
                    esac
                done
                case "$command:$prev" in
            \(valueCases.joined(separator: "\n"))
            \(silentCases.isEmpty ? "" : "    \(silentCases.joined(separator: "|"))) return ;;")
                esac
                case "$command" in
                "") words='\((commandWords + defaultOptions).joined(separator: " "))' ;;
                help) words='\(commands.map(\.name).joined(separator: " "))' ;;
            \(optionCases.joined(separator: "\n"))
                esac
                COMPREPLY=($(compgen -W "$words" -- "$cur"))
            }
            complete -F _\(name) \(name)

            """
    }

    // MARK: fish

    private var fishScript: String {
        let others = commandWords.joined(separator: " ")
        var lines = ["# \(header)", "complete -c \(name) -f"]
        for command in commands {
            lines.append("complete -c \(name) -n '__fish_use_subcommand' -a \(command.name) -d \(Self.fishQuoted(command.abstract))")
        }
        lines.append("complete -c \(name) -n '__fish_use_subcommand' -a help -d 'Show help for a command.'")
        lines.append("complete -c \(name) -n '__fish_seen_subcommand_from help' -a '\(commands.map(\.name).joined(separator: " "))'")
        for command in commands {
            let condition = command.name == defaultCommand
                ? "not __fish_seen_subcommand_from \(others); or __fish_seen_subcommand_from \(command.name)"
                : "__fish_seen_subcommand_from \(command.name)"
            for option in command.allOptions {
                var line = "complete -c \(name) -n '\(condition)'"
                if let short = option.short { line += " -s \(short)" }
                line += " -l \(option.long)"
                switch option.completion {
                case .values(let values)?: line += " -x -k -a '\(values.joined(separator: " "))'"
                case .shellCommand(let shellCommand)?: line += " -x -a '(\(shellCommand) 2>/dev/null)'"
                case nil: if !option.isFlag { line += " -x" }
                }
                lines.append(line + " -d " + Self.fishQuoted(option.help))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func fishQuoted(_ text: String) -> String {
        "'" + text.replacingAll("\\", with: "\\\\").replacingAll("'", with: "\\'") + "'"
    }

    // MARK: zsh

    private var zshScript: String {
        let commandDescriptions = commands.map { "        \(Self.zshQuoted("\($0.name):\(Self.zshEscaped($0.abstract))"))" }
        let defaultSpecs = command(named: defaultCommand).map(zshSpecs) ?? []
        let commandCases = commands.map { command in
            "        \(command.name)) _arguments \\\n" + zshSpecs(command).map { "            \($0)" }.joined(separator: " \\\n") + " ;;"
        }
        return """
            #compdef \(name)
            # \(header)
            _\(name)() {
                local context state state_descr line curcontext="$curcontext"
                typeset -A opt_args
                local -a commands=(
            \(commandDescriptions.joined(separator: "\n"))
                    'help:Show help for a command.'
                )
                _arguments -C \\
            \(defaultSpecs.map { "        \($0) \\" }.joined(separator: "\n"))
                    '1: :->command' '*:: :->arguments' && return
                case $state in
                command) _describe -t commands '\(name) command' commands ;;
                arguments)
                    curcontext="${curcontext%:*:*}:\(name)-$line[1]:"
                    case $line[1] in
                    help) _describe -t commands '\(name) command' commands ;;
            \(commandCases.joined(separator: "\n"))
                    esac ;;
                esac
            }
            _\(name) "$@"

            """
    }

    /// `_arguments` specs: `'(-q --quiet)'{-q,--quiet}'[Print nothing.]'`, a value's action after it.
    private func zshSpecs(_ command: Command) -> [String] {
        command.allOptions.map { option in
            let description = "[\(Self.zshEscaped(option.help))]"
            var action = ""
            if let valueName = option.valueName {
                switch option.completion {
                case .values(let values)?: action = ":\(valueName):(\(values.joined(separator: " ")))"
                case .shellCommand(let shellCommand)?: action = ":\(valueName):($(\(shellCommand) 2>/dev/null))"
                case nil: action = ":\(valueName): "
                }
            }
            let repeating = option.isRepeating ? "*" : ""
            guard let short = option.short else { return Self.zshQuoted("\(repeating)--\(option.long)\(description)\(action)") }
            let exclusion = option.isRepeating ? "" : Self.zshQuoted("(-\(short) --\(option.long))")
            return exclusion + "\(repeating.isEmpty ? "" : "'*'"){-\(short),--\(option.long)}" + Self.zshQuoted(description + action)
        }
    }

    /// What `_arguments` reads specially in a description: brackets and colons.
    private static func zshEscaped(_ text: String) -> String {
        text.replacingAll("\\", with: "\\\\").replacingAll("[", with: "\\[").replacingAll("]", with: "\\]").replacingAll(":", with: "\\:")
    }

    private static func zshQuoted(_ text: String) -> String { "'" + text.replacingAll("'", with: "'\\''") + "'" }
}

extension String {
    /// Every `target` replaced. Not `replacingOccurrences` (FoundationEssentials) nor a split on
    /// a string (_StringProcessing): this module links neither.
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        for character in self { if character == target { result += replacement } else { result.append(character) } }
        return result
    }
}
