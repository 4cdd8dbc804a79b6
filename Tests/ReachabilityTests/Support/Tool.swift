import Foundation
import Glibc

/// What a command-line tool printed and how it exited.
struct ToolResult: Sendable {
    let status: Int32
    let standardOutput: String
    let standardError: String

    var succeeded: Bool { status == 0 }

    /// Everything printed, for failure messages.
    var transcript: String {
        "exit status \(status)\n--- stdout\n\(standardOutput)--- stderr\n\(standardError)"
    }
}

/// Runs a tool (`busctl`, `reachctl`, `swift`, …) as a user would, without blocking a Swift
/// concurrency thread while it runs.
func runTool(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:],
    timeout: Duration = .seconds(60)
) async throws -> ToolResult {
    let child = try ChildProcess(executable, arguments, environment: environment)
    let status = try await child.exit(timeout: timeout)
    return ToolResult(status: status, standardOutput: child.standardOutput, standardError: child.standardError)
}

/// A long-running tool (e.g. `reachctl watch`) whose output is collected until it is stopped.
final class BackgroundTool: Sendable {
    let child: ChildProcess

    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        child = try ChildProcess(executable, arguments, environment: environment)
    }

    /// True once the tool has exited on its own (or been stopped).
    var hasExited: Bool { child.poll() != nil }

    var standardOutput: String { child.standardOutput }

    /// Output so far, standard output then standard error.
    var output: String { child.standardOutput + child.standardError }

    /// The lines written to standard output so far (complete lines only).
    var lines: [String] {
        let text = child.standardOutput
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// Stops the tool and returns everything it printed.
    @discardableResult
    func stop(_ signal: Int32 = SIGTERM) -> String {
        child.stop(signal)
        return output
    }
}

/// Polls `condition` until it holds, for behaviour that crosses processes.
func eventually(
    timeout: Duration = .seconds(15), _ what: @autoclosure () -> String, _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw TestFailure("timed out waiting until \(what())") }
        try await Task.sleep(for: .milliseconds(20))
    }
}
