import Foundation
import Glibc
import ReachdTestSupport

/// `ip -n NAMESPACE -batch FIFO`, started once: each command written to the FIFO is run at once.
final class RouteCommands: Sendable {
    private let directory: String
    private let batch: ChildProcess
    private let writer: Int32

    init(namespace: String) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-routes-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        let fifo = directory + "/commands"
        guard mkfifo(fifo, 0o600) == 0 else { throw TestFailure("mkfifo \(fifo): errno \(errno)") }
        // Read and write: opening does not wait for ip, and ip sees the end only when this closes.
        writer = open(fifo, O_RDWR | O_CLOEXEC)
        guard writer >= 0 else { throw TestFailure("open \(fifo): errno \(errno)") }
        batch = try ChildProcess("/usr/sbin/ip", ["-n", namespace, "-batch", fifo])
    }

    func send(_ command: String) throws {
        if let status = batch.poll() { throw TestFailure("ip -batch exited with \(status): \(batch.standardError)") }
        let line = Array((command + "\n").utf8)
        guard write(writer, line, line.count) == line.count else { throw TestFailure("writing to ip -batch: errno \(errno)") }
    }

    func close() {
        Glibc.close(writer)
        if batch.poll() == nil { usleep(100_000) }
        batch.stop()
        batch.removeOutput()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
