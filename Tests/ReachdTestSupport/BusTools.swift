import Foundation
import Glibc

/// The command-line clients, pointed at a private bus the way a user would.
extension PrivateBus {
    /// `busctl --address=ADDRESS ARGUMENTS…`
    public func busctl(_ arguments: String...) async throws -> ToolResult {
        try await runTool("busctl", ["--address=\(address)"] + arguments)
    }

    /// `gdbus COMMAND --address ADDRESS ARGUMENTS…`
    public func gdbus(_ command: String, _ arguments: String...) async throws -> ToolResult {
        try await runTool("gdbus", [command, "--address", address] + arguments)
    }

    /// `dbus-send --bus=ADDRESS --print-reply ARGUMENTS…`.
    ///
    /// Not `--address=`: for dbus-send that is the old spelling of `--peer=`,
    /// which skips `Hello`, so the bus drops the unregistered client and the
    /// call ends in NoReply after 25 s (seen with dbus 1.14).
    public func dbusSend(_ arguments: [String]) async throws -> ToolResult {
        try await runTool("dbus-send", ["--bus=\(address)", "--print-reply", "--reply-timeout=10000"] + arguments)
    }

    /// `dbus-send --bus=ADDRESS --print-reply ARGUMENTS…` (see the array form).
    public func dbusSend(_ arguments: String...) async throws -> ToolResult {
        try await dbusSend(arguments)
    }

    /// The unique name owning `name` now, or nil when it has no owner.
    public func owner(of name: String) async throws -> String? {
        let result = try await busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                      "GetNameOwner", "s", name)
        guard result.succeeded else {
            // busctl: "Call failed: Could not get owner of name 'NAME': no such name"
            guard result.standardError.contains("no such name") else {
                throw TestFailure("GetNameOwner \(name) failed: \(result.transcript)")
            }
            return nil
        }
        return unquoted(result.standardOutput, type: "s")
    }

    /// The process ID behind a unique or well-known name, as the bus reports
    /// it; nil when the name has no owner.
    public func processID(of name: String) async throws -> pid_t? {
        let result = try await busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                      "GetConnectionUnixProcessID", "s", name)
        guard result.succeeded else { return nil }
        return pid_t(unquoted(result.standardOutput, type: "u"))
    }

    /// Waits until some client of this bus has a match rule for signals from
    /// `sender`: the only sign that a `gdbus monitor` (which subscribes after
    /// printing "is owned by", with no further output) now receives them.
    /// Uses dbus-daemon's Debug.Stats interface, which the private buses allow.
    public func waitForMatchRule(sender: String, timeout: Duration = .seconds(10)) async throws {
        var last = ""
        try await eventually(timeout: timeout, "a match rule for sender \(sender) is on the bus:\n\(last)") {
            let rules = try await busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                         "org.freedesktop.DBus.Debug.Stats", "GetAllMatchRules")
            last = rules.transcript
            // gdbus monitor's rule is exactly this; other clients' rules name more.
            return rules.standardOutput.contains("\"type=\\'signal\\',sender=\\'\(sender)\\'\"")
        }
    }
}

/// `TYPE "text"` or `TYPE value` as busctl prints a single value → the value's text.
public func unquoted(_ line: String, type: String) -> String {
    var text = line.trimmingCharacters(in: .whitespacesAndNewlines)
    if text.hasPrefix(type + " ") { text.removeFirst(type.count + 1) }
    if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = String(text.dropFirst().dropLast()) }
    return text
}

/// Text with every run of whitespace (newlines included) made one space, so
/// that output laid out in columns or across lines compares by its words.
public func collapsingWhitespace(_ text: String) -> String {
    text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).joined(separator: " ")
}
