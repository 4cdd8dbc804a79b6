import Foundation
import Glibc

/// The kernel's route events in one network namespace, stamped as they happen: `ip -ts monitor
/// route`, listening before the first change. A test that bounds how fast a client follows a route
/// change times it from here, the kernel's event, not from before it spawned `ip` to make the
/// change: on a busy machine starting that tool alone took a tenth of a second and more (measured
/// with one busy loop beside the suite), which is no part of what the product promises.
public final class KernelRouteEvents: Sendable {
    private let monitor: ChildProcess

    /// Starts the monitor in `namespace` (a name under /run/netns) and waits until it listens.
    public init(namespace: String) async throws {
        monitor = try ChildProcess("/usr/sbin/ip", ["-n", namespace, "-ts", "monitor", "route"])
        let pid = monitor.pid
        // Listening: its own netlink socket (port id = its pid) is bound to the IPv4 route group
        // (RTMGRP_IPV4_ROUTE, 0x40), as /proc/PID/net/netlink (its namespace's table) shows.
        try await eventually(timeout: .seconds(10), "ip monitor route listens in \(namespace): \(monitor.standardError)") {
            if monitor.poll() != nil { throw TestFailure("ip monitor route exited: \(monitor.standardError)") }
            let table = (try? String(contentsOfFile: "/proc/\(pid)/net/netlink", encoding: .utf8)) ?? ""
            return table.split(separator: "\n").contains { line in
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count > 3, fields[2] == "\(pid)", let groups = UInt32(fields[3], radix: 16) else { return false }
                return groups & 0x40 != 0
            }
        }
    }

    /// How many events it has printed so far: pass it to `time(after:matching:)`.
    public var count: Int { lines.count }

    /// The wall-clock time of the first event after the first `count` whose text contains
    /// `text` (`"Deleted default"`, `"default via"`), or nil if none has come yet.
    public func time(after count: Int, matching text: String) -> Date? {
        lines.dropFirst(count).first { $0.contains(text) }.flatMap(Self.stamp)
    }

    /// Waits for that event (it may be read a moment after the client's answer) and returns its time.
    public func waitForTime(after count: Int, matching text: String) async throws -> Date {
        var found: Date?
        try await eventually(timeout: .seconds(10), "ip monitor saw \"\(text)\":\n\(monitor.standardOutput)") {
            found = time(after: count, matching: text)
            return found != nil
        }
        return found!
    }

    public func stop() {
        monitor.stop(SIGKILL)
        _ = monitor.waitBlocking()
        monitor.removeOutput()
    }

    private var lines: [String] { monitor.standardOutput.split(separator: "\n").map(String.init) }

    /// `[2026-11-28T19:19:55.206032] …`: ip's local time, to the microsecond.
    static func stamp(_ line: String) -> Date? {
        guard line.hasPrefix("["), let close = line.firstIndex(of: "]") else { return nil }
        let text = line[line.index(after: line.startIndex)..<close]
        let parts = text.split(separator: ".")
        guard parts.count == 2, let micro = Int(parts[1]) else { return nil }
        // 2026-11-28T19:19:55: six numbers.
        let numbers = parts[0].split(whereSeparator: { "-T:".contains($0) }).compactMap { Int32($0) }
        guard numbers.count == 6 else { return nil }
        var time = tm()
        time.tm_year = numbers[0] - 1900
        time.tm_mon = numbers[1] - 1
        time.tm_mday = numbers[2]
        time.tm_hour = numbers[3]
        time.tm_min = numbers[4]
        time.tm_sec = numbers[5]
        time.tm_isdst = -1
        let seconds = mktime(&time)
        guard seconds != -1 else { return nil }
        return Date(timeIntervalSince1970: Double(seconds) + Double(micro) / 1_000_000)
    }
}

/// The lines a child writes to its output file, each stamped with the wall-clock time it landed
/// there, by processes of their own: `tail -F` (woken by inotify at each write) and a stamper that
/// reads it. With `KernelRouteEvents` a test bounds the time from the kernel's event to a client's
/// line without counting its own polling: in a whole run the test process shares two cooperative
/// threads with every test running beside it, and measured with a busy loop beside the suite its
/// polling loop woke hundreds of milliseconds late while the clients had printed within a few.
public final class OutputStamps: Sendable {
    private let stamper: ChildProcess

    public init(following path: String) throws {
        let script = """
            import ctypes, subprocess, sys, time
            libc = ctypes.CDLL(None)
            # tail ends with the stamper (PR_SET_PDEATHSIG, SIGKILL): a test stops one process.
            tail = subprocess.Popen(["tail", "-F", "-n", "+1", "-s", "0.01", sys.argv[1]], stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL, preexec_fn=lambda: libc.prctl(1, 9))
            for line in tail.stdout:
                sys.stdout.write("%.6f %s" % (time.time(), line.decode(errors="replace")))
                sys.stdout.flush()
            """
        stamper = try ChildProcess("/usr/bin/python3", ["-u", "-c", script, path], unsetting: ["PYTHONPATH", "PYTHONHOME"])
    }

    /// How many lines it has stamped so far.
    public var count: Int { lines.count }

    /// Waits until a line after the first `count` satisfies `matches`; returns when it landed.
    public func waitForStamp(after count: Int, _ what: String, where matches: @escaping (String) -> Bool) async throws -> Date {
        var found: Date?
        try await eventually(timeout: .seconds(10), "a stamped line \(what):\n\(stamper.standardOutput.suffix(2000))\(stamper.standardError)") {
            found = lines.dropFirst(count).lazy.compactMap { line -> Date? in
                guard let space = line.firstIndex(of: " "), let seconds = Double(line[..<space]),
                      matches(String(line[line.index(after: space)...])) else { return nil }
                return Date(timeIntervalSince1970: seconds)
            }.first
            return found != nil
        }
        return found!
    }

    public func stop() {
        stamper.stop(SIGKILL)
        stamper.removeOutput()
    }

    private var lines: [String] { stamper.standardOutput.split(separator: "\n").map(String.init) }
}
