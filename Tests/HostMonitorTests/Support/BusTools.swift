import Foundation

/// The command-line clients, pointed at a private bus the way a user would.
extension PrivateBus {
    /// `busctl --address=ADDRESS ARGUMENTS…`
    func busctl(_ arguments: String...) async throws -> ToolResult {
        try await runTool("busctl", ["--address=\(address)"] + arguments)
    }

    /// The unique name owning `name` now, or nil when it has no owner.
    func owner(of name: String) async throws -> String? {
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

    /// The process ID behind a unique name, as the bus reports it.
    func processID(of uniqueName: String) async throws -> pid_t? {
        let result = try await busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                      "GetConnectionUnixProcessID", "s", uniqueName)
        guard result.succeeded else { return nil }
        return pid_t(unquoted(result.standardOutput, type: "u"))
    }
}

/// `TYPE "text"` or `TYPE value` as busctl prints a single value → the value's text.
func unquoted(_ line: String, type: String) -> String {
    var text = line.trimmingCharacters(in: .whitespacesAndNewlines)
    if text.hasPrefix(type + " ") { text.removeFirst(type.count + 1) }
    if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = String(text.dropFirst().dropLast()) }
    return text
}
