import Foundation
import Glibc

/// The system calls process `pid` and its threads make over `duration` (strace -f), without the
/// wait each was in when strace attached and let go: what "idle" is measured by (no call while
/// nothing happens).
public func systemCalls(of pid: pid_t, over duration: Duration) async throws -> [Substring] {
    let trace = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-trace-\(pid)-\(UUID().uuidString.prefix(6))").path
    defer { try? FileManager.default.removeItem(atPath: trace) }
    let strace = try ChildProcess("/usr/bin/strace", ["-f", "-o", trace, "-p", String(pid)])
    defer { strace.removeOutput() }
    try await eventually(timeout: .seconds(10), "strace attaches: \(strace.standardError)") {
        strace.standardError.contains("attached")
    }
    try await Task.sleep(for: duration)
    strace.stop(SIGINT)
    _ = try? await strace.exit(timeout: .seconds(10))
    return ((try? String(contentsOfFile: trace, encoding: .utf8)) ?? "").split(separator: "\n")
        .filter { !$0.contains("<detached") && !$0.contains("resuming interrupted") }
}
