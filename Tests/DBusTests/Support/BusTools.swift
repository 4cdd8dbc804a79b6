/// The command-line clients, pointed at a private bus the way a user would.
extension PrivateBus {
    /// `busctl --address=ADDRESS ARGUMENTS…`
    func busctl(_ arguments: String...) async throws -> ToolResult {
        try await runTool("busctl", ["--address=\(address)"] + arguments)
    }

    /// `gdbus COMMAND --address ADDRESS ARGUMENTS…`
    func gdbus(_ command: String, _ arguments: String...) async throws -> ToolResult {
        try await runTool("gdbus", [command, "--address", address] + arguments)
    }

    /// `dbus-send --bus=ADDRESS --print-reply ARGUMENTS…`.
    ///
    /// Not `--address=`: for dbus-send that is the old spelling of `--peer=`,
    /// which skips `Hello`, so the bus drops the unregistered client and the
    /// call ends in NoReply after 25 s (seen with dbus 1.14).
    func dbusSend(_ arguments: String...) async throws -> ToolResult {
        try await runTool("dbus-send", ["--bus=\(address)", "--print-reply", "--reply-timeout=10000"] + arguments)
    }
}

extension ToolResult {
    /// Everything printed, for failure messages.
    var transcript: String {
        "exit status \(status)\n--- stdout\n\(standardOutput)--- stderr\n\(standardError)"
    }
}

/// Text with every run of whitespace (newlines included) made one space, so
/// that output laid out in columns or across lines compares by its words.
func collapsingWhitespace(_ text: String) -> String {
    text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).joined(separator: " ")
}
