import Foundation
import Glibc

/// Network daemons (connmand, NetworkManager, systemd-networkd) that would manage interfaces the
/// tests rely on: those in the machine's network namespace or in the suite's own. One in any other
/// namespace (a container's, another clone's suite, a harness's `reachd-*` namespaces) manages
/// that namespace alone, and the suite runs beside it. The rule lives in one place,
/// `Scripts/harness/daemons-in-the-way`, which the harnesses' `down` applies too.
public enum DaemonsInTheWay {
    public static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Scripts/harness/daemons-in-the-way").path

    /// One found: its pid, name, and where it runs ("the machine's namespace", "the suite's namespace", …).
    public struct Found: Sendable, Equatable, CustomStringConvertible {
        public let pid: pid_t
        public let name: String
        public let place: String
        public var description: String { "\(name) (pid \(pid)) in \(place)" }

        public init(pid: pid_t, name: String, place: String) {
            self.pid = pid
            self.name = name
            self.place = place
        }
    }

    /// The processes named one of `names` (as /proc/PID/comm: at most 15 characters) in the way;
    /// `suitePid`: a process whose namespace stands for the suite's (default: this process's).
    /// Throws when the script itself fails, so that a broken check never reads as "none".
    public static func find(_ names: [String], suitePid: pid_t? = nil) throws -> [Found] {
        let arguments = (suitePid.map { ["--suite-pid", String($0)] } ?? []) + names
        let check = try ChildProcess(script, arguments)
        defer { check.removeOutput() }
        let status = check.waitBlocking()
        guard status == 0 || status == 1 else {
            throw TestFailure("\(script) \(arguments.joined(separator: " ")) failed (\(status)): \(check.standardError)")
        }
        return check.standardOutput.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
            guard parts.count == 3, let pid = pid_t(parts[0]) else { return nil }
            return Found(pid: pid, name: parts[1], place: parts[2])
        }
    }
}
