import Foundation
import Glibc

/// A child process started with `posix_spawn`, its output going to files.
///
/// Foundation's `Process.waitUntilExit` was seen to hang here after the child
/// had exited, so the tests use this small wrapper around `waitpid` instead.
public final class ChildProcess: @unchecked Sendable {
    // Safe because: `exitStatus` is read and written only under `lock` (by
    // `poll`, `stop` and `waitBlocking`); the other stored properties are constants.
    public let pid: pid_t
    /// The path that was started (`/usr/bin/NAME` for a bare name).
    public let executable: String
    public let outputPath: String
    public let errorPath: String
    private let lock = NSLock()
    private var exitStatus: Int32?

    /// `DBUS_FATAL_WARNINGS` is meant for reachd and the test process: a
    /// dbus-daemon or client tool that inherits it aborts on harmless warnings
    /// (seen under load, with tests in parallel), so it is removed unless
    /// `keepFatalWarnings` is set (for reachd itself). `unsetting` names more
    /// variables to remove; `environment` is applied last, so what it sets wins.
    ///
    /// `ownSession`: the child starts a session of its own (`setsid`), as a daemon the machine
    /// starts does. With the kernel's autogroups (`sched_autogroup_enabled`, on by default) a
    /// session is also a scheduling group: the child then gets its own share of the CPU rather
    /// than one thread's share among the test's busy processes.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        unsetting: [String] = [], keepFatalWarnings: Bool = false, ownSession: Bool = false
    ) throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-child-\(UUID().uuidString)").path
        outputPath = base + ".out"
        errorPath = base + ".err"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // Concurrency threads block most signals and a spawned child inherits
        // that mask; without resetting it the child would ignore SIGTERM.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | (ownSession ? Self.setSession : 0)))
        let path = executable.hasPrefix("/") ? executable : "/usr/bin/\(executable)"
        self.executable = path
        var env = ProcessInfo.processInfo.environment
        if !keepFatalWarnings { env["DBUS_FATAL_WARNINGS"] = nil }
        for name in unsetting { env[name] = nil }
        for (key, value) in environment { env[key] = value }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child = pid_t()
        let result = posix_spawn(&child, path, &actions, &attributes, argv, envp)
        guard result == 0 else { throw TestFailure("posix_spawn \(path) failed: \(String(cString: strerror(result)))") }
        pid = child
    }

    /// glibc's POSIX_SPAWN_SETSID, which its header declares only for _GNU_SOURCE.
    private static let setSession: Int32 = 0x80

    public var standardOutput: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
    public var standardError: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    /// `waitpid`'s status as a shell reports it: the exit code, or 128 + n when killed by signal n.
    private static func code(_ status: Int32) -> Int32 {
        (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// The exit status once the child has exited (128 + signal when killed), else nil.
    public func poll() -> Int32? {
        lock.withLock {
            if let exitStatus { return exitStatus }
            var status: Int32 = 0
            guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
            let code = Self.code(status)
            exitStatus = code
            return code
        }
    }

    /// Waits for the child to exit without blocking a concurrency thread;
    /// kills it and throws (with what it printed) if it outlives `timeout`, counted as
    /// `PatientDeadline` counts it (a tool that had no CPU is slow, not hung).
    public func exit(timeout: Duration = .seconds(60)) async throws -> Int32 {
        let deadline = PatientDeadline(timeout: timeout)
        while true {
            if let code = poll() { return code }
            guard !deadline.hasPassed else {
                stop(SIGKILL)
                throw TestFailure("\(executable) (pid \(pid)) did not exit within \(deadline.account)\n--- stdout\n\(standardOutput)--- stderr\n\(standardError)")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Sends `signal` and reaps the child (blocking; for teardown). The
    /// status recorded is the real one (the child may handle `signal` and exit 0).
    public func stop(_ signal: Int32 = SIGTERM) {
        lock.withLock {
            guard exitStatus == nil else { return }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                exitStatus = Self.code(status)
                return
            }
            kill(pid, signal)
            _ = waitpid(pid, &status, 0)
            exitStatus = Self.code(status)
        }
    }

    /// Waits for the child to exit, blocking the thread (for teardown in `defer`).
    @discardableResult
    public func waitBlocking() -> Int32 {
        lock.withLock {
            if let exitStatus { return exitStatus }
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
            let code = Self.code(status)
            exitStatus = code
            return code
        }
    }

    public func removeOutput() {
        unlink(outputPath)
        unlink(errorPath)
    }

    deinit {
        stop(SIGKILL)
        removeOutput()
    }
}
