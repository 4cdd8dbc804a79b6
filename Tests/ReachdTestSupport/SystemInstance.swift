import Foundation
import Glibc

/// reachd's system instance as the package sets it up, on a private system bus built from
/// Debian's own deny-by-default `system.conf` (contract 4, §1.3): the staged policy file
/// (`dbus/system/io.reachd.Reachability1.conf`) in an `<includedir>`, the `reachd` user made by
/// `systemd-sysusers` from the shipped `sysusers.d` entry, reachd started as that user with
/// `--system`, and callers run as other users with `setpriv`, with no session bus.
public enum SystemInstance {
    /// The repository's root (this file is Tests/ReachdTestSupport/SystemInstance.swift).
    public static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    /// The user reachd runs as, and two callers of other users.
    public static let serviceUser = "reachd"
    public static let testUser = "reachd-tester"
    public static let nobody = "nobody"

    /// Creates the `reachd` user from the shipped `sysusers.d` entry and the test caller, as
    /// `systemd-sysusers` does at package installation, in the tests' namespace only: its /etc is
    /// an overlay of the run's (Scripts/harness/test-namespace), so the users last as long as the
    /// run, the machine's accounts stay as they were, and a second run at once has its own.
    public static func ensureUsers() async throws {
        guard geteuid() == 0 else {
            throw TestFailure("the system-instance tests need root: they create the reachd user and run callers as other users (setpriv); run the tests as root, e.g. sudo -E Scripts/test")
        }
        // Outside it the users would be the machine's, and stay.
        try ReachdProcess.requireTestNamespace()
        let shipped = repository.appendingPathComponent("dbus/system/reachd.sysusers.conf").path
        try await runToolChecked("systemd-sysusers", [shipped])
        let tester = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-tester-\(UUID().uuidString.prefix(8)).conf")
        try "u \(testUser) - \"reachd test caller\" /nonexistent /usr/sbin/nologin\n".write(to: tester, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: tester) }
        try await runToolChecked("systemd-sysusers", [tester.path])
        for user in [serviceUser, testUser, nobody] where getpwnam(user) == nil {
            throw TestFailure("user \(user) does not exist after systemd-sysusers")
        }
    }

    /// A folder holding the staged policy, for the bus's `<includedir>`.
    public static func stagedPolicyDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-policy-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o755])
        try FileManager.default.copyItem(at: repository.appendingPathComponent("dbus/system/io.reachd.Reachability1.conf"),
                                         to: directory.appendingPathComponent("io.reachd.Reachability1.conf"))
        return directory
    }

    /// `executable arguments…` as `user`, with no session bus and `DBUS_SYSTEM_BUS_ADDRESS` at `bus`.
    public static func run(as user: String, bus: PrivateBus, _ executable: String, _ arguments: [String],
                           environment: [String: String] = [:], timeout: Duration = .seconds(60)) async throws -> ToolResult {
        let child = try asUser(user, bus: bus, executable, arguments, environment: environment)
        defer { child.removeOutput() }
        let status = try await child.exit(timeout: timeout)
        return ToolResult(status: status, standardOutput: child.standardOutput, standardError: child.standardError)
    }

    /// The same, left running (a client that holds its connections). A program of the checkout
    /// runs from a copy `user` can read (OtherUsersCopies).
    public static func asUser(_ user: String, bus: PrivateBus, _ executable: String, _ arguments: [String],
                              environment: [String: String] = [:], ownSession: Bool = false) throws -> ChildProcess {
        var variables = environment
        variables["DBUS_SYSTEM_BUS_ADDRESS"] = bus.address
        return try ChildProcess("/usr/bin/setpriv", try dropPrivileges(to: user) + [try OtherUsersCopies.path(for: executable)] + arguments,
                                environment: variables, unsetting: ["DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR", "HOME"], ownSession: ownSession)
    }
}

extension SystemInstance {
    /// `setpriv` options that become `user` with its own group and no others.
    public static func dropPrivileges(to user: String) throws -> [String] {
        guard let entry = getpwnam(user) else { throw TestFailure("there is no user \(user)") }
        return ["--reuid=\(entry.pointee.pw_uid)", "--regid=\(entry.pointee.pw_gid)", "--clear-groups"]
    }
}

/// Runs `body` with Debian's system bus holding the staged policy, python-dbusmock's
/// NetworkManager on it (run as root, as NetworkManager is; its own policy file lets it own its
/// name), and `reachd --system` as user `reachd` in a private network namespace whose default
/// route leaves over `rv0`.
public func withSystemInstance<T>(
    arguments: [String] = [], _ body: (PrivateBus, NetworkManagerMock, ReachdProcess) async throws -> T
) async throws -> T {
    try await withDebianSystemBus { bus, mock in
        let reachd = try ReachdProcess(session: bus, systemBus: bus.address, arguments: arguments,
                                       systemInstance: true, user: SystemInstance.serviceUser)
        defer { reachd.stop() }
        try await reachd.waitUntilServing()
        let result = try await body(bus, mock, reachd)
        if let status = reachd.process.poll() {
            throw TestFailure("reachd --system exited with status \(status) during the test; stderr:\n\(reachd.standardError)")
        }
        return result
    }
}

/// Runs `body` with `reachd --system` as `Scripts/install` builds it (`InstalledBuild.reachd`), as
/// user `reachd`, serving on Debian's system bus holding the staged policy and nothing else (no
/// NetworkManager): for the tests whose figures are the product's, under another user's attack.
/// `resolverConfiguration`: as `ReachdProcess`'s.
public func withInstalledSystemInstance<T>(
    resolverConfiguration: String? = nil, _ body: (PrivateBus, ReachdProcess) async throws -> T
) async throws -> T {
    try await SystemInstance.ensureUsers()
    let policies = try SystemInstance.stagedPolicyDirectory()
    defer { try? FileManager.default.removeItem(at: policies) }
    let bus = try PrivateBus(debianSystemBusWith: [policies.path])
    defer { bus.stop() }
    let reachd = try ReachdProcess(session: bus, systemBus: bus.address, systemInstance: true, user: SystemInstance.serviceUser,
                                   resolverConfiguration: resolverConfiguration, executable: try await InstalledBuild.reachd,
                                   ownSession: true)
    defer { reachd.stop() }
    try await reachd.waitUntilServing()
    return try await body(bus, reachd)
}

/// Runs `body` with Debian's system bus holding the staged policy (and the `reachd` user made),
/// python-dbusmock's NetworkManager on it, and no reachd yet: the package's files in place.
public func withDebianSystemBus<T>(_ body: (PrivateBus, NetworkManagerMock) async throws -> T) async throws -> T {
    try await SystemInstance.ensureUsers()
    let policies = try SystemInstance.stagedPolicyDirectory()
    defer { try? FileManager.default.removeItem(at: policies) }
    let bus = try PrivateBus(debianSystemBusWith: [policies.path])
    defer { bus.stop() }
    let mock = try await NetworkManagerMock(on: bus)
    defer { mock.stop() }
    return try await body(bus, mock)
}
