import Foundation
import Glibc

/// What a process has used, as /proc shows it: for tests that hold reachd to a cost.
public enum ProcessFigures {
    /// The CPU time `pid` has used (user and system).
    public static func cpuTime(of pid: pid_t) throws -> Duration {
        let text = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // Fields after the command's closing parenthesis; utime and stime are the 14th and 15th.
        guard let close = text.lastIndex(of: ")") else { throw TestFailure("unreadable /proc/\(pid)/stat") }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else {
            throw TestFailure("unreadable /proc/\(pid)/stat: \(text)")
        }
        let ticks = sysconf(Int32(_SC_CLK_TCK))
        return .milliseconds((user + system) * 1000 / ticks)
    }

    /// `pid`'s resident set now (`VmRSS`), in KiB.
    public static func residentKiB(of pid: pid_t) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else {
            throw TestFailure("no VmRSS in /proc/\(pid)/status")
        }
        return kib
    }
}
