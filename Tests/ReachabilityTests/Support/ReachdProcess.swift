import Foundation
import Glibc

/// The real reachd executable on a private session bus, watching NetworkManager on a private system bus.
final class ReachdProcess: Sendable {
    static let name = "io.reachd.Reachability1"

    private let process: ChildProcess

    /// Starts reachd and returns once it owns its name (so it has its first state).
    init(session: PrivateBus, system: PrivateBus, arguments: [String] = []) async throws {
        // reachd is the one child that keeps DBUS_FATAL_WARNINGS: misuse of libdbus in it must fail loudly.
        process = try ChildProcess(
            Executables.reachd, ["--system-bus-address", system.address] + arguments,
            environment: ["DBUS_SESSION_BUS_ADDRESS": session.address], keepFatalWarnings: true)
        do {
            try await eventually("reachd owns \(Self.name)") {
                if process.poll() != nil { throw TestFailure("reachd exited: \(process.standardError)") }
                return try await session.ownerProcess(of: Self.name) == process.pid
            }
        } catch {
            process.stop(SIGKILL)
            throw error
        }
    }

    var pid: pid_t { process.pid }
    var log: String { process.standardError }
    /// The exit status once reachd has exited, else nil.
    var exitStatus: Int32? { process.poll() }

    /// Stops reachd with `signal` (SIGKILL: as if it crashed) and reaps it.
    func stop(_ signal: Int32 = SIGTERM) {
        process.stop(signal)
    }

    deinit { stop(SIGKILL) }
}
