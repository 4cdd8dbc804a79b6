import Foundation
import Glibc
import Testing

/// The reachd executable built beside this test binary, run as a user would:
/// `DBUS_SESSION_BUS_ADDRESS=… reachd --system-bus-address …`, with
/// `DBUS_FATAL_WARNINGS=1` so that any misuse of libdbus aborts it.
public final class ReachdProcess: Sendable {
    public static let busName = "io.reachd.Reachability1"
    public static let path = "/io/reachd/Reachability1"
    public static let interface = "io.reachd.Reachability1"

    /// `.build/<triple>/debug/reachd`: SwiftPM builds it before the tests
    /// (the test target depends on it) and puts it next to the test binary.
    public static let executable: String = {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        precondition(length > 0, "cannot read /proc/self/exe")
        let testBinary = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return URL(fileURLWithPath: testBinary).deletingLastPathComponent().appendingPathComponent("reachd").path
    }()

    public let process: ChildProcess
    public let session: PrivateBus
    public let network: Network

    /// Where reachd runs.
    public enum Network: Sendable {
        /// The tests' own network namespace, which Scripts/test makes (Scripts/harness/test-namespace):
        /// loopback up, one default route over veth `rv0` via 192.0.2.1, the same kernel view as
        /// `privateWithDefaultRoute`, shared with the test process and every tool it starts, so
        /// reachd answers their questions about hosts and paths (it refuses a caller in another
        /// namespace). Tests that change routes use a private namespace instead.
        case testNamespace
        /// A fresh network namespace (with a mount namespace and its own
        /// /sys, which reachd reads link facts from), loopback up, whose only default
        /// route leaves over veth `rv0` via 192.0.2.1: the kernel's view is
        /// Reachable over ethernet `rv0`. It goes away with reachd. Its
        /// netlink backend (which takes over while NetworkManager is away)
        /// then sees routes the test made, never the machine's.
        case privateWithDefaultRoute
        /// A namespace made by someone else (`ip netns exec NAME`).
        case named(String)
        /// The test process's own network namespace, no wrapper: for
        /// behaviour that involves no network (address literals only).
        case current
    }

    /// Starts reachd on `session`, watching NetworkManager on `systemBus`
    /// (given with `--system-bus-address` unless `systemBusInEnvironment`,
    /// then as `DBUS_SYSTEM_BUS_ADDRESS`). The machine's own system bus is
    /// never used: the variable is removed from reachd's environment otherwise.
    ///
    /// `systemInstance`: run `reachd --system`, serving on `session` (then a system-style bus,
    /// given as `DBUS_SYSTEM_BUS_ADDRESS`, with no session bus at all) as the Unix user `user`
    /// (`setpriv --reuid USER --regid USER --clear-groups`), as the system unit runs it.
    ///
    /// `resolverConfiguration`: a file bound over `/etc/resolv.conf` for reachd alone (a mount
    /// namespace of its own, in the tests' network namespace), e.g. a name server that never
    /// answers; readable by `user`.
    ///
    /// `executable`: another build of reachd (`InstalledBuild.reachd`, the release one).
    public init(
        session: PrivateBus, systemBus: String, systemBusInEnvironment: Bool = false,
        network: Network = .testNamespace, arguments: [String] = [],
        systemInstance: Bool = false, user: String? = nil, resolverConfiguration: String? = nil,
        executable reachdExecutable: String = ReachdProcess.executable, ownSession: Bool = false
    ) throws {
        guard access(reachdExecutable, X_OK) == 0 else {
            throw TestFailure("reachd is not built at \(reachdExecutable)")
        }
        self.session = session
        self.network = network
        // No configuration file of the machine's or the developer's: reachd reads
        // $XDG_CONFIG_HOME/reachd/reachd.conf, else one in $XDG_CONFIG_DIRS, and either would
        // change what every test sees (the system instance reads /etc/reachd/reachd.conf:
        // --no-config). A test that wants a file passes --config.
        var environment = ["DBUS_FATAL_WARNINGS": "1",
                           "XDG_CONFIG_HOME": "/nonexistent/reachd-tests", "XDG_CONFIG_DIRS": "/nonexistent/reachd-tests"]
        var reachdArguments = arguments
        var unsetting = ["DBUS_SYSTEM_BUS_ADDRESS"]
        if systemInstance {
            environment["DBUS_SYSTEM_BUS_ADDRESS"] = session.address
            unsetting = ["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"]
            reachdArguments = ["--system"] + (arguments.contains("--config") ? [] : ["--no-config"]) + reachdArguments
            if systemBus != session.address { reachdArguments += ["--system-bus-address", systemBus] }
        } else {
            environment["DBUS_SESSION_BUS_ADDRESS"] = session.address
            if systemBusInEnvironment {
                environment["DBUS_SYSTEM_BUS_ADDRESS"] = systemBus
            } else {
                reachdArguments += ["--system-bus-address", systemBus]
            }
        }
        // As another user: setpriv drops to it right before reachd runs (after any namespace set-up),
        // from a copy that user can read wherever the checkout is.
        let dropPrivileges = try user.map { ["/usr/bin/setpriv"] + (try SystemInstance.dropPrivileges(to: $0)) } ?? []
        let executable = user == nil ? reachdExecutable : try OtherUsersCopies.path(for: reachdExecutable)
        // Each wrapper ends in exec, so the process started is reachd itself
        // (same pid) once it runs.
        let launcher: String, launcherArguments: [String]
        switch network {
        case .privateWithDefaultRoute:
            launcher = "/usr/bin/unshare"
            let setup = """
                mount -t sysfs sysfs /sys && ip link set lo up && \
                ip link add rv0 type veth peer name rv1 && ip link set rv1 up && \
                ip address add 192.0.2.2/24 dev rv0 && ip link set rv0 up && \
                ip route add default via 192.0.2.1 && exec "$0" "$@"
                """
            launcherArguments = (geteuid() == 0 ? [] : ["--map-root-user"])
                + ["--net", "--mount", "--", "/bin/sh", "-c", setup] + dropPrivileges
                + [executable] + reachdArguments
        case .named(let name):
            launcher = "/usr/sbin/ip"
            launcherArguments = ["netns", "exec", name] + dropPrivileges + [executable] + reachdArguments
        case .testNamespace, .current:
            if case .testNamespace = network { try Self.requireTestNamespace() }
            let command = dropPrivileges + [executable] + reachdArguments
            if let resolverConfiguration {
                launcher = "/usr/bin/unshare"
                launcherArguments = ["--mount", "--propagation", "private", "--", "/bin/sh", "-c",
                                     "mount --bind \"$0\" /etc/resolv.conf && exec \"$@\"", resolverConfiguration] + command
            } else {
                launcher = command[0]
                launcherArguments = Array(command.dropFirst())
            }
        }
        process = try ChildProcess(launcher, launcherArguments, environment: environment,
                                   unsetting: unsetting, keepFatalWarnings: true, ownSession: ownSession)
    }

    /// Fails, saying how to run the tests, outside the namespace Scripts/test makes: there the
    /// kernel view would be this machine's, and the tests' answers with it.
    public static func requireTestNamespace() throws {
        guard getenv("REACHD_TEST_NAMESPACE").map({ String(cString: $0) }) == "1", access("/sys/class/net/rv0", F_OK) == 0 else {
            throw TestFailure("this test runs reachd in the tests' own network namespace, whose routes Scripts/test sets up: run the tests with `Scripts/test [--filter …]`, or `Scripts/harness/test-namespace swift test …` as root")
        }
    }

    public var pid: pid_t { process.pid }

    /// `executable arguments…` as a tool to run in reachd's network namespace (`nsenter` into
    /// it), where reachd answers its questions about hosts and paths; as it is for reachd in the
    /// tests' own namespace.
    public func inItsNamespace(_ executable: String, _ arguments: [String]) -> (String, [String]) {
        let command = namespaceLauncher + [executable] + arguments
        return (command[0], Array(command.dropFirst()))
    }

    /// What to put before a command to run it in reachd's network namespace: nothing in the
    /// tests' own, `nsenter --net=/proc/PID/ns/net --` in another.
    public var namespaceLauncher: [String] {
        if case .testNamespace = network { return [] }
        return ["/usr/bin/nsenter", "--net=/proc/\(pid)/ns/net", "--"]
    }
    public var standardError: String { process.standardError }

    /// Waits until this process owns the bus name; returns its unique name. (The bound is a
    /// test's patience, not reachd's start time, which Scripts/bench measures: on a machine
    /// stalled by another test's package installs, a dozen starts at once took over 10 s to be seen.)
    @discardableResult
    public func waitUntilServing(timeout: Duration = .seconds(30)) async throws -> String {
        var owner: String?
        try await eventually(timeout: timeout, "reachd (pid \(pid)) owns \(Self.busName); its stderr:\n\(standardError)") {
            if let status = process.poll() {
                throw TestFailure("reachd exited with status \(status) before owning its name; stderr:\n\(standardError)")
            }
            guard let current = try await session.owner(of: Self.busName),
                  try await session.processID(of: current) == pid else { return false }
            owner = current
            return true
        }
        return owner!
    }

    /// Sends `signal` and returns the exit status (128 + n when killed by signal n).
    public func exitStatus(after signal: Int32, timeout: Duration = .seconds(10)) async throws -> Int32 {
        kill(pid, signal)
        return try await process.exit(timeout: timeout)
    }

    /// Teardown: SIGTERM, then SIGKILL if it lingers.
    public func stop() {
        guard process.poll() == nil else { return }
        kill(pid, SIGTERM)
        for _ in 0..<500 where process.poll() == nil { usleep(10_000) }
        process.stop(SIGKILL)
    }

    deinit { stop() }
}

/// A system-bus address where nothing listens: a socket that is not there, in a folder that is
/// there and stays quiet, which every user may enter. reachd waits for a missing system bus
/// socket with inotify on its folder (a boot's bus may come later), so the folder's quiet is
/// its idle: in the busy temporary folder it would wake at every file another test makes.
public func absentSystemBusAddress() -> String {
    "unix:path=\(QuietFolder.path)/system_bus_socket-\(UUID().uuidString.prefix(8))"
}

/// One folder per test process under /tmp, mode 0755, that nothing writes to; removed at exit.
private enum QuietFolder {
    static let path: String = {
        var template = Array("/tmp/reachd-no-bus-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { preconditionFailure("mkdtemp: \(String(cString: strerror(errno)))") }
        let folder = String(cString: made)
        chmod(folder, 0o755)
        atexit { try? FileManager.default.removeItem(atPath: QuietFolder.path) }
        return folder
    }()
}

/// Runs `body` with reachd serving on `session` (on `network`); afterwards
/// checks that reachd is still running (it never crashed, e.g. on a fatal
/// libdbus warning) and stops it on every path out. When `body` throws and
/// reachd has exited, the error says so, with reachd's stderr.
public func withReachd<T>(
    session: PrivateBus, systemBus: String, network: ReachdProcess.Network = .testNamespace,
    arguments: [String] = [], sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (ReachdProcess) async throws -> T
) async throws -> T {
    let reachd = try ReachdProcess(session: session, systemBus: systemBus, network: network, arguments: arguments)
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
