import Foundation
import Glibc
import Testing

/// The reachd executable built beside this test binary, run as a user would:
/// `DBUS_SESSION_BUS_ADDRESS=… reachd --system-bus-address …`, with
/// `DBUS_FATAL_WARNINGS=1` so that any misuse of libdbus aborts it; inside a
/// network namespace through `ip netns exec` when one is given (which execs,
/// so the process is reachd itself).
final class ReachdProcess: Sendable {
    static let busName = "io.reachd.Reachability1"

    /// `.build/<triple>/debug/reachd`: SwiftPM builds it before the tests
    /// (the test target depends on it) and puts it next to the test binary.
    static let executable: String = {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        precondition(length > 0, "cannot read /proc/self/exe")
        let testBinary = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return URL(fileURLWithPath: testBinary).deletingLastPathComponent().appendingPathComponent("reachd").path
    }()

    let process: ChildProcess
    let session: PrivateBus

    /// Starts reachd on `session`, watching NetworkManager on `systemBus`.
    /// The machine's own system bus is never used.
    init(session: PrivateBus, systemBus: String, namespace: String? = nil, arguments: [String] = []) throws {
        guard access(Self.executable, X_OK) == 0 else {
            throw TestFailure("reachd is not built at \(Self.executable)")
        }
        self.session = session
        let environment = ["DBUS_SESSION_BUS_ADDRESS": session.address, "DBUS_FATAL_WARNINGS": "1"]
        let reachdArguments = ["--system-bus-address", systemBus] + arguments
        if let namespace {
            process = try ChildProcess("ip", ["netns", "exec", namespace, Self.executable] + reachdArguments,
                                       environment: environment, unsetting: ["DBUS_SYSTEM_BUS_ADDRESS"], keepFatalWarnings: true)
        } else {
            process = try ChildProcess(Self.executable, reachdArguments, environment: environment,
                                       unsetting: ["DBUS_SYSTEM_BUS_ADDRESS"], keepFatalWarnings: true)
        }
    }

    var pid: pid_t { process.pid }
    var standardError: String { process.standardError }

    /// Waits until this process owns the bus name.
    func waitUntilServing(timeout: Duration = .seconds(10)) async throws {
        try await eventually(timeout: timeout, "reachd (pid \(pid)) owns \(Self.busName); its stderr:\n\(standardError)") {
            if let status = process.poll() {
                throw TestFailure("reachd exited with status \(status) before owning its name; stderr:\n\(standardError)")
            }
            guard let owner = try await session.owner(of: Self.busName) else { return false }
            return try await session.processID(of: owner) == pid
        }
    }

    /// Teardown: SIGTERM, then SIGKILL if it lingers.
    func stop() {
        guard process.poll() == nil else { return }
        kill(pid, SIGTERM)
        for _ in 0..<500 where process.poll() == nil { usleep(10_000) }
        process.stop(SIGKILL)
    }

    deinit { stop() }
}

/// A system-bus address where nothing listens.
func absentSystemBusAddress() -> String {
    "unix:path=\(FileManager.default.temporaryDirectory.path)/reachd-no-bus-\(UUID().uuidString.prefix(8))"
}

/// Runs `body` with reachd serving on `session` (in `namespace` if given);
/// afterwards checks that reachd is still running (it never crashed, e.g. on
/// a fatal libdbus warning) and stops it on every path out.
func withReachd<T>(
    session: PrivateBus, systemBus: String, namespace: String? = nil, arguments: [String] = [],
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (ReachdProcess) async throws -> T
) async throws -> T {
    let reachd = try ReachdProcess(session: session, systemBus: systemBus, namespace: namespace, arguments: arguments)
    defer { reachd.stop() }
    try await reachd.waitUntilServing()
    let result: T
    do {
        result = try await body(reachd)
    } catch {
        if let status = reachd.process.poll() {
            throw TestFailure("\(error)\nreachd exited with status \(status); stderr:\n\(reachd.standardError)")
        }
        throw error
    }
    #expect(reachd.process.poll() == nil, "reachd exited during the test; stderr:\n\(reachd.standardError)",
            sourceLocation: sourceLocation)
    return result
}
