import CommandGrammar
import ReachdBuildVersion
import Glibc

/// `reachctl`: reachd's reachability for people and scripts, over the `ReachdKit` library.
/// `ReachctlProgram` runs it.
enum Reachctl {
    /// The whole command line, declared once: parsing, `--help`, the completions and the manual
    /// page (through `--experimental-dump-help`) all come from it.
    static let tool = Tool(
        name: "reachctl",
        abstract: "Show and watch network reachability as reachd (io.reachd.Reachability1) publishes it.",
        discussion: """
            reachctl asks the nearest reachd that shares its network namespace: the one on the \
            session bus ($DBUS_SESSION_BUS_ADDRESS), started by D-Bus activation where it is \
            installed, else the one on the system bus; where neither answers, reachd's engine runs \
            in reachctl itself. --service (or REACHD_SERVICE) chooses one: session, system or \
            in-process; status says which answered. The status is printed in the locale's language \
            (LC_ALL, LC_MESSAGES, LANG: English or Simplified Chinese), the flags by their \
            SCNetworkReachabilityFlags names.

            \(ExitStatus.help)
            """,
        version: "reachctl \(reachdVersion)",
        commands: [Status.command, Watch.command, Host.command, Wait.command, Path.command],
        defaultCommand: Status.command.name)

    /// `reachctl --service system status` as `reachctl status --service system`: the option is
    /// each command's, and reads naturally before the command too.
    static func serviceAfterCommand(_ arguments: [String]) -> [String] {
        var leading: [String] = []
        var rest = arguments[...]
        while let first = rest.first, first.hasPrefix("--service") {
            leading.append(rest.removeFirst())
            if first == "--service", let value = rest.first {
                leading.append(value)
                rest.removeFirst()
            }
        }
        guard !leading.isEmpty else { return arguments }
        guard let command = rest.first, !command.hasPrefix("-") else { return Array(rest) + leading }
        return [command] + leading + Array(rest.dropFirst())
    }

    /// Help, the version, the completions and the manual's description on standard output,
    /// exit 0; a usage error on standard error in reachctl's words, exit 64. A word where the
    /// command goes that names none (`reachctl stauts`) is a usage error that names the commands,
    /// not an argument to the default `status`.
    static func main() async {
        let arguments = serviceAfterCommand(Array(CommandLine.arguments.dropFirst()))
        if let word = arguments.first, !word.hasPrefix("-"), !tool.commandWords.contains(word) {
            Output.error(tool.unknownCommand(word))
            exit(ExitStatus.usage.rawValue)
        }
        do {
            switch try tool.read(arguments) {
            case .help(let command): Output.text(tool.help(for: command))
            case .version: Output.line(tool.version)
            case .manualDescription: Output.line(ManualDescription.json(of: tool).text)
            case .completionScript(let shell): Output.text(tool.completionScript(for: shell))
            case .run(let invocation): try await run(invocation)
            }
        } catch let error as UsageError {
            Output.standardError(tool.text(of: error))
            exit(ExitStatus.usage.rawValue)
        } catch let code as ExitCode {
            exit(code.status)
        } catch {
            Output.error("\(error)")
            exit(1)
        }
    }

    private static func run(_ invocation: Invocation) async throws {
        switch invocation.command {
        case Watch.command.name: try await Watch(invocation).run()
        case Host.command.name: try await Host(invocation).run()
        case Wait.command.name: try await Wait(invocation).run()
        case Path.command.name: try await Path(invocation).run()
        default: try await Status(invocation).run()
        }
    }
}

/// Ends reachctl with this status, after whatever was to be said was said.
struct ExitCode: Error {
    let status: Int32

    init(_ status: Int32) { self.status = status }
}
