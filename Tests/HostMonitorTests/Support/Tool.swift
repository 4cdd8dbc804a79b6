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
