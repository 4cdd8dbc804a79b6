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

/// Runs a client tool (`busctl`, `gdbus`, `dbus-send`, a harness script) as a
/// user would, without blocking a Swift concurrency thread while it runs.
func runTool(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:],
    timeout: Duration = .seconds(60)
) async throws -> ToolResult {
    let child = try ChildProcess(executable, arguments, environment: environment)
    defer { child.removeOutput() }
    let status = try await child.exit(timeout: timeout)
    return ToolResult(status: status, standardOutput: child.standardOutput, standardError: child.standardError)
}

/// Like `runTool`, but a failure is an error carrying the transcript.
@discardableResult
func runToolChecked(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:],
    timeout: Duration = .seconds(60)
) async throws -> ToolResult {
    let result = try await runTool(executable, arguments, environment: environment, timeout: timeout)
    guard result.succeeded else {
        throw TestFailure("\(executable) \(arguments.joined(separator: " ")) failed: \(result.transcript)")
    }
    return result
}

/// A long-running tool (e.g. `gdbus monitor`) whose output is collected until it is stopped.
final class BackgroundTool: Sendable {
    private let child: ChildProcess

    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        child = try ChildProcess(executable, arguments, environment: environment)
    }

    /// Output so far, standard output then standard error.
    var output: String { child.standardOutput + child.standardError }
    var standardOutput: String { child.standardOutput }

    /// Stops the tool and returns everything it printed.
    @discardableResult
    func stop(_ signal: Int32 = SIGTERM) -> String {
        child.stop(signal)
        return output
    }

    /// Waits until the output contains `text`, up to `timeout`.
    func waitForOutput(containing text: String, timeout: Duration = .seconds(10)) async throws {
        try await eventually(timeout: timeout, "'\(text)' appears in the output of the tool:\n\(output)") {
            output.contains(text)
        }
    }
}

/// Polls `condition` until it holds, for behaviour that crosses processes.
func eventually(
    timeout: Duration = .seconds(10), pollingEvery interval: Duration = .milliseconds(20),
    _ what: @autoclosure () -> String, _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw TestFailure("timed out after \(timeout) waiting until \(what())") }
        try await Task.sleep(for: interval)
    }
}
