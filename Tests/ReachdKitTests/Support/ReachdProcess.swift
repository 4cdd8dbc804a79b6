import Glibc
import ReachdTestSupport

/// How these tests run the real reachd: in the test's own network namespace on
/// a private session bus, watching NetworkManager on a private system bus.
extension ReachdProcess {
    /// Starts reachd and returns once it owns its name (so it has its first state).
    convenience init(session: PrivateBus, system: PrivateBus, arguments: [String] = []) async throws {
        // reachd is the one child that keeps DBUS_FATAL_WARNINGS: misuse of libdbus in it must fail loudly.
        // In the tests' own namespace, whose routes are known (rv0, default via 192.0.2.1), so that
        // the kernel view is the same on every machine and the library in this process shares it
        // (a reachd in another namespace is never used); --no-override: the mock's devices are not
        // those links, so the cross-check would publish rv0 over the mock's word, and these tests
        // follow the mock.
        try self.init(session: session, systemBus: system.address, network: .testNamespace,
                      arguments: ["--no-override"] + arguments)
        do {
            try await waitUntilServing(timeout: .seconds(15))
        } catch {
            process.stop(SIGKILL)
            throw error
        }
    }

    var log: String { standardError }
    /// The exit status once reachd has exited, else nil.
    var exitStatus: Int32? { process.poll() }

    /// Stops reachd with `signal` (SIGKILL: as if it crashed) and reaps it.
    func stop(_ signal: Int32) {
        process.stop(signal)
    }
}
