import Foundation
import Glibc

/// What a command-line tool printed and how it exited.
public struct ToolResult: Sendable {
    public let status: Int32
    public let standardOutput: String
    public let standardError: String

    public init(status: Int32, standardOutput: String, standardError: String) {
        self.status = status
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    public var succeeded: Bool { status == 0 }

    /// Everything printed, for failure messages.
    public var transcript: String {
        "exit status \(status)\n--- stdout\n\(standardOutput)--- stderr\n\(standardError)"
    }
}

/// Runs a tool (`busctl`, `gdbus`, `dbus-send`, `reachctl`, `swift`, a harness
/// script) as a user would, without blocking a Swift concurrency thread while it runs.
public func runTool(
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
public func runToolChecked(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:],
    timeout: Duration = .seconds(60)
) async throws -> ToolResult {
    let result = try await runTool(executable, arguments, environment: environment, timeout: timeout)
    guard result.succeeded else {
        throw TestFailure("\(executable) \(arguments.joined(separator: " ")) failed: \(result.transcript)")
    }
    return result
}

/// A long-running tool (e.g. `gdbus monitor`, `reachctl watch`) whose output
/// is collected until it is stopped.
public final class BackgroundTool: Sendable {
    public let child: ChildProcess

    public init(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        child = try ChildProcess(executable, arguments, environment: environment)
    }

    public var processIdentifier: Int32 { child.pid }

    /// True once the tool has exited on its own (or been stopped).
    public var hasExited: Bool { child.poll() != nil }

    public var standardOutput: String { child.standardOutput }

    /// Output so far, standard output then standard error.
    public var output: String { child.standardOutput + child.standardError }

    /// The lines written to standard output so far (complete lines only).
    public var lines: [String] {
        let text = child.standardOutput
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// Stops the tool and returns everything it printed.
    @discardableResult
    public func stop(_ signal: Int32 = SIGTERM) -> String {
        child.stop(signal)
        return output
    }

    /// Waits until the output contains `text`, up to `timeout`.
    public func waitForOutput(containing text: String, timeout: Duration = .seconds(10)) async throws {
        try await eventually(timeout: timeout, "'\(text)' appears in the output of the tool:\n\(output)") {
            output.contains(text)
        }
    }
}

/// Polls `condition` until it holds, for behaviour that crosses processes.
///
/// `timeout` counts the time the machine had CPU to give (`PatientDeadline`): a wait fails when what it
/// waits for is dead (the condition throws) or stuck, not because the suite's machine was busy.
/// A bound the product promises is not a wait: measure it from the event to the answer.
public func eventually(
    timeout: Duration = .seconds(10), pollingEvery interval: Duration = .milliseconds(20),
    _ what: @autoclosure () -> String, _ condition: () async throws -> Bool
) async throws {
    let deadline = PatientDeadline(timeout: timeout)
    while try await !condition() {
        guard !deadline.hasPassed else { throw TestFailure("timed out after \(deadline.account) waiting until \(what())") }
        try await Task.sleep(for: interval)
    }
}
