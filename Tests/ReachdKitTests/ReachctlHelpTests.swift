import Foundation
import ReachdTestSupport
import Testing

/// reachctl's help, usage errors and shell completions, as a new user meets them: each help
/// states each default once and one EXIT STATUS true for its command, a mistyped command or an
/// out-of-range value is a usage error that says what is allowed, and the shells complete
/// `--level`'s values.
@Suite("reachctl help, usage errors and completions", .timeLimit(.minutes(2)))
struct ReachctlHelpTests {
    static let subcommands = ["status", "watch", "host", "wait", "path"]

    static func help(_ arguments: [String]) async throws -> String {
        try await runToolChecked(Executables.reachctl, arguments + ["--help"]).standardOutput
    }

    /// The entries of the ARGUMENTS and OPTIONS sections: each starts with a line indented by two
    /// spaces, and continues with the more deeply indented lines under it.
    static func entries(_ help: String) -> [String] {
        var entries: [String] = []
        var inside = false
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "OPTIONS:" || line == "ARGUMENTS:" { inside = true; continue }
            if line.isEmpty || !line.hasPrefix(" ") { inside = false; continue }
            guard inside else { continue }
            if line.hasPrefix("  ") && !line.hasPrefix("   ") {
                entries.append(String(line))
            } else if !entries.isEmpty {
                entries[entries.count - 1] += " " + line.trimmingCharacters(in: .whitespaces)
            }
        }
        return entries
    }

    @Test("no option's help states its default twice", arguments: [[]] + subcommands.map { [$0] })
    func eachDefaultIsStatedOnce(_ command: [String]) async throws {
        let help = try await Self.help(command)
        let entries = Self.entries(help)
        #expect(!entries.isEmpty, "\(help)")
        for entry in entries {
            let mentions = entry.lowercased().components(separatedBy: "default").count - 1
            #expect(mentions <= 1, "reachctl \(command.joined()) --help: \(entry)")
        }
        if command == ["wait"] {
            // The defaults are still there, once each, as swift-argument-parser wrote them.
            for (option, shown) in [("--level", "(default: routable)"), ("--timeout", "(default: 30)"), ("--stable", "(default: 0)")] {
                let entry = entries.first { $0.hasPrefix("  \(option) ") }
                #expect(entry?.contains(shown) == true, "\(option): \(entry ?? "missing")")
            }
        }
    }

    @Test("each command's help has one EXIT STATUS, true for that command; reachctl --help has them all")
    func eachHelpHasItsOwnExitStatus() async throws {
        func table(_ help: String) -> [String] {
            guard let start = help.range(of: "EXIT STATUS\n") else { return [] }
            return help[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
                .prefix { !$0.isEmpty }.map { $0.trimmingCharacters(in: .whitespaces) }
        }
        func codes(_ help: String) -> [String] {
            table(help).compactMap { $0.split(separator: " ").first.map(String.init) }
        }
        let expected = [
            "status": ["0", "3", "4", "64", "74"], "path": ["0", "3", "4", "64", "74"],
            "watch": ["4", "64", "74"], "host": ["0", "1", "3", "4", "64", "74"], "wait": ["0", "1", "3", "4", "5", "64", "74"],
        ]
        for command in Self.subcommands {
            let help = try await Self.help([command])
            #expect(help.components(separatedBy: "EXIT STATUS").count == 2, "one table in \(command)'s help:\n\(help)")
            #expect(codes(help) == expected[command], "\(command): \(table(help))")
        }
        #expect(table(try await Self.help(["host"])).contains("1   not reachable"))
        let overall = try await Self.help([])
        #expect(codes(overall) == ["0", "1", "3", "4", "5", "64", "74"], "\(table(overall))")
        #expect(table(overall).contains { $0.hasPrefix("1   host: not reachable") }, "\(table(overall))")
    }

    @Test("help NOSUCH is a usage error that names the commands; help wait is not")
    func helpForAnUnknownCommandExits64() async throws {
        let unknown = try await runTool(Executables.reachctl, ["help", "stauts"])
        #expect(unknown.status == 64, "\(unknown.transcript)")
        #expect(unknown.standardError.contains("unknown command 'stauts'"), "\(unknown.transcript)")
        #expect(unknown.standardError.contains("status, watch, host, wait, path"), "\(unknown.transcript)")
        let known = try await runTool(Executables.reachctl, ["help", "wait"])
        #expect(known.status == 0 && known.standardOutput.contains("USAGE: reachctl wait"), "\(known.transcript)")
        // online's check may be reachd's own: help wait says how to turn it on, and where.
        let flat = known.standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(flat.contains("reachd's own, which [connectivity] uri=http://... in reachd.conf turns on; "
                              + "~/.config/reachd/reachd.conf for your reachd, /etc/reachd/reachd.conf for a system one"),
                "\(known.transcript)")
        #expect(try await runTool(Executables.reachctl, ["help"]).status == 0)
    }

    @Test("an error with no command word shows reachctl's usage, not status's; every error line starts 'reachctl: '",
          arguments: [(["--bogus"], true), (["--json", "x"], true), (["status", "--bogus"], false),
                      (["wait", "--timeout", "soon"], false), (["wait", "--level", "loud"], false), (["host"], false),
                      (["stauts"], true)])
    func usageErrorsSpeakReachctlsWords(arguments: [String], topLevel: Bool) async throws {
        let result = try await runTool(Executables.reachctl, arguments)
        #expect(result.status == 64, "\(result.transcript)")
        let lines = result.standardError.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("reachctl: ") == true, "\(result.transcript)")
        #expect(!result.standardError.contains("Error: "), "\(result.transcript)")
        if arguments == ["stauts"] { return }  // main's own check: one line
        #expect(lines.contains { $0.hasPrefix("Usage: reachctl [<command>]") } == topLevel, "\(result.transcript)")
        #expect(!result.standardError.contains("Usage: reachctl status") || arguments.first == "status", "\(result.transcript)")
        if arguments == ["--bogus"] {
            #expect(lines[0] == "reachctl: unknown option '--bogus'", "\(result.transcript)")
            #expect(result.standardError.contains("commands: status, watch, host, wait, path, help"), "\(result.transcript)")
            #expect(result.standardError.contains("See 'reachctl --help'"), "\(result.transcript)")
        }
    }

    @Test("a negative --timeout or --stable is out of range, and the error says which range (not 'Missing value')",
          arguments: [("--timeout", "--timeout must be from 0 to 31536000 seconds (a year; decimals allowed), or inf; got -1"),
                      ("--stable", "--stable must be from 0 to 31536000 seconds (a year; decimals allowed); got -1")])
    func negativeSecondsAreOutOfRange(option: String, message: String) async throws {
        let result = try await runTool(Executables.reachctl, ["wait", option, "-1"])
        #expect(result.status == 64, "\(result.transcript)")
        #expect(result.standardError.contains(message), "\(result.transcript)")
        #expect(!result.standardError.contains("Missing value"), "\(result.transcript)")
    }

    /// Writes the completion script reachctl generates for `shell` to `file`, as a package installs it.
    static func writeCompletionScript(_ shell: String, to file: URL) async throws {
        let script = try await runToolChecked(Executables.reachctl, ["--generate-completion-script", shell]).standardOutput
        try script.write(to: file, atomically: true, encoding: .utf8)
    }

    /// What bash offers after `reachctl WORDS…` with the cursor at the end of the last word,
    /// from the completion script reachctl generates, run by bash itself.
    static func bashCompletions(_ words: [String]) async throws -> [String] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("reachctl-completion-\(UUID().uuidString.prefix(8)).bash")
        try await writeCompletionScript("bash", to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let line = (["reachctl"] + words).joined(separator: " ")
        let result = try await runToolChecked("/usr/bin/bash", ["-c", """
            source "$1"
            COMP_WORDS=(reachctl "${@:3}")
            COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
            COMP_LINE="$2"; COMP_POINT=${#COMP_LINE}
            COMPREPLY=()
            _reachctl reachctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """, "bash", file.path, line] + words)
        return result.standardOutput.split(separator: "\n").map(String.init)
    }

    @Test("bash completes --level's values, and -i's from the machine's interfaces")
    func bashCompletesLevels() async throws {
        #expect(try await Self.bashCompletions(["wait", "--level", ""]) == ["link", "routable", "dns", "online"])
        #expect(try await Self.bashCompletions(["wait", "--level", "r"]) == ["routable"])
        #expect(try await Self.bashCompletions(["wait", "-i", "l"]).contains("lo"))
    }

    /// The shell reachctl's completion script is for, which `Scripts/test` installs with the other
    /// test packages: without it the test fails and says so, rather than passing unrun.
    static func installedShell(_ name: String) throws -> String {
        let path = "/usr/bin/\(name)"
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw TestFailure("\(name) is missing (Debian package \(name), in REACHD_TEST_PACKAGES): reachctl's \(name) completions cannot be run")
        }
        return path
    }

    /// What fish offers after `reachctl WORDS…`, from the completion script reachctl generates,
    /// run by fish itself.
    static func fishCompletions(_ words: [String]) async throws -> [String] {
        let fish = try installedShell("fish")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("reachctl-completion-\(UUID().uuidString.prefix(8)).fish")
        try await writeCompletionScript("fish", to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let line = (["reachctl"] + words).joined(separator: " ")
        let result = try await runToolChecked(fish, ["--no-config", "-c", "source $argv[1]; complete -C $argv[2]", file.path, line])
        // One line per candidate: the value, then a tab and its description.
        return result.standardOutput.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
    }

    /// What zsh's completion system offers after `reachctl WORDS…` when TAB is pressed. An
    /// interactive zsh on a pseudo-terminal (zsh's zpty module) runs compinit and finds reachctl's
    /// script on its fpath as `_reachctl`, as an installed one is found; its `compadd`, which every
    /// completion function offers its matches through, writes down each match it adds. Nothing
    /// offered is an error carrying what the terminal showed: no test here expects nothing, and it
    /// is how a broken set-up would show.
    static func zshCompletions(_ words: [String]) async throws -> [String] {
        let zsh = try installedShell("zsh")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reachctl-completion-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("functions"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await writeCompletionScript("zsh", to: folder.appendingPathComponent("functions/_reachctl"))
        // Sourced by the interactive zsh, with the folder as $1.
        try #"""
            PS1= RPS1=
            folder=$1
            fpath=($folder/functions $fpath)
            autoload -Uz compinit && compinit -u -D
            bindkey -e
            bindkey '^I' complete-word
            # Calls with -O, -A or -D only fill an array and offer nothing: they pass through.
            compadd() {
                if (( ${${@[1,(i)(-|--)]}[(I)-[OAD]*]} )); then
                    builtin compadd "$@"
                    return
                fi
                local -a reachctl_test_matches
                builtin compadd -O reachctl_test_matches "$@"
                (( ${#reachctl_test_matches} )) && print -rl -- $reachctl_test_matches >> $folder/matches
                builtin compadd "$@"
            }
            zle-line-init() { print -rn -- 'line editor READY' }
            zle -N zle-line-init
            """#.write(to: folder.appendingPathComponent("setup.zsh"), atomically: true, encoding: .utf8)
        let line = (["reachctl"] + words).joined(separator: " ")
        let result = try await runToolChecked(zsh, ["-f", "-c", #"""
            zmodload zsh/zpty || exit 1
            export TERM=dumb
            zpty shell ${(q)0} -f -i
            zpty -w shell "source ${(q)1}/setup.zsh ${(q)1}"
            # Keys typed before the line editor has the terminal are read as a cooked line, where
            # ^U erases it: type only once the editor says it is ready.
            zpty -r -m shell terminal '*line editor READY*' || { print -r -- "${(V)terminal}" >&2; exit 1 }
            # TAB completes; then ^U empties the line and exit ends the shell, in that order.
            zpty -w -n shell "$2"$'\t\C-uexit\n'
            while zpty -r shell output; do terminal+=$output; done
            zpty -d shell
            print -r -- "${(V)terminal}" >&2
            if [[ -e $1/matches ]]; then cat $1/matches; fi
            """#, zsh, folder.path, line], timeout: .seconds(30))
        let matches = result.standardOutput.split(separator: "\n").map(String.init)
        if matches.isEmpty { throw TestFailure("zsh offered nothing after '\(line)':\n\(result.transcript)") }
        return matches
    }

    @Test("fish completes --level's values, and -i's from the machine's interfaces")
    func fishCompletesLevels() async throws {
        #expect(try await Self.fishCompletions(["wait", "--level", ""]) == ["link", "routable", "dns", "online"])
        #expect(try await Self.fishCompletions(["wait", "--level", "r"]) == ["routable"])
        #expect(try await Self.fishCompletions(["wait", "-i", "l"]).contains("lo"))
    }

    @Test("zsh completes --level's values, and -i's from the machine's interfaces")
    func zshCompletesLevels() async throws {
        #expect(try await Self.zshCompletions(["wait", "--level", ""]) == ["link", "routable", "dns", "online"])
        #expect(try await Self.zshCompletions(["wait", "--level", "r"]) == ["routable"])
        #expect(try await Self.zshCompletions(["wait", "-i", "l"]).contains("lo"))
    }
}
