import Foundation
import Glibc

/// A private `dbus-daemon` for one test: its own socket in a temporary
/// directory, a policy that allows everything, optionally a folder of
/// activation files, gone when the test ends. Tests never touch the machine's buses.
public final class PrivateBus: Sendable {
    public enum Flavour: String, Sendable { case session, system }

    public let address: String
    public let directory: URL
    private let process: ChildProcess
    /// The daemon's process, for figures (its CPU under a flood).
    public var pid: pid_t { process.pid }

    /// `activationFiles`: `.service` files by name, for D-Bus activation on
    /// this bus; when nil (the default) the bus has no service directory.
    /// `serviceDirectory`: a folder of activation files made elsewhere (an installed tree).
    public init(_ flavour: Flavour = .session, activationFiles: [String: String]? = nil, serviceDirectory: String? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-bus-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var serviceDirectories = ""
        if let activationFiles {
            let services = directory.appendingPathComponent("services")
            try FileManager.default.createDirectory(at: services, withIntermediateDirectories: true)
            for (name, contents) in activationFiles {
                try contents.write(to: services.appendingPathComponent(name), atomically: true, encoding: .utf8)
            }
            serviceDirectories = "\n  <servicedir>\(services.path)</servicedir>"
        }
        if let extra = serviceDirectory {
            serviceDirectories += "\n  <servicedir>\(extra)</servicedir>"
        }
        let socket = directory.appendingPathComponent("bus").path
        (process, address) = try Self.start(in: directory, configuration: """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>\(flavour.rawValue)</type>
              <listen>unix:path=\(socket)</listen>
              <auth>EXTERNAL</auth>\(serviceDirectories)
              <policy context="default">
                <allow user="*"/>
                <allow own="*"/>
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
              </policy>
            </busconfig>
            """)
    }

    /// A private system bus configured as Debian configures the real one: Debian's own
    /// `/usr/share/dbus-1/system.conf` (deny by default: a name is owned and a method called
    /// only where a policy file allows it), listening on a socket in a test folder, without
    /// fork, user, pidfile, syslog or the activation helper, with the machine's `system.d`
    /// policies (NetworkManager's, networkd's) and an `<includedir>` for each of
    /// `policyDirectories` (a staged reachd policy), and a `<servicedir>` for each of
    /// `serviceDirectories` (staged system-bus activation files: listed, not started, as there is
    /// no launch helper). The folder is world-readable, so callers of other users reach the socket.
    public init(debianSystemBusWith policyDirectories: [String], serviceDirectories: [String] = []) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-sysbus-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        let socket = directory.appendingPathComponent("bus").path
        var text = try String(contentsOfFile: "/usr/share/dbus-1/system.conf", encoding: .utf8)
        for element in ["user", "pidfile", "servicehelper", "listen"] {
            text = text.replacingOccurrences(of: "<\(element)>[^<]*</\(element)>", with: "", options: .regularExpression)
        }
        for element in ["fork", "syslog", "standard_system_servicedirs"] {
            text = text.replacingOccurrences(of: "<\(element)/>", with: "")
        }
        // Relative to the file's folder: the copy's folder has none; the machine's is meant.
        text = text.replacingOccurrences(of: "<includedir>system.d</includedir>",
                                         with: "<includedir>/usr/share/dbus-1/system.d</includedir>")
        let ours = policyDirectories.map { "  <includedir>\($0)</includedir>\n" }.joined()
            + serviceDirectories.map { "  <servicedir>\($0)</servicedir>\n" }.joined()
        guard let end = text.range(of: "</busconfig>", options: .backwards) else {
            throw TestFailure("/usr/share/dbus-1/system.conf has no </busconfig>")
        }
        text.replaceSubrange(end, with: "  <listen>unix:path=\(socket)</listen>\n\(ours)</busconfig>")
        (process, address) = try Self.start(in: directory, configuration: text)
    }

    /// Writes `configuration` into `directory` and starts dbus-daemon on it; returns it and its address.
    private static func start(in directory: URL, configuration: String) throws -> (ChildProcess, String) {
        let config = directory.appendingPathComponent("bus.conf")
        try configuration.write(to: config, atomically: true, encoding: .utf8)
        // In a session of its own, as the machine's buses run (systemd's units, `dbus-launch`,
        // `dbus-daemon --fork`): in the test's session the daemon would get one process's share of
        // the CPU among the test's, and under a flood at its per-user limits it falls behind on
        // its own (issue 44: its CPU a flood grew 2.8 → 9.8 s, the other user's call waited 5 s).
        let process = try ChildProcess("dbus-daemon", ["--nofork", "--print-address=1", "--config-file=\(config.path)"], ownSession: true)
        // The daemon prints its address once it listens.
        let deadline = PatientDeadline(timeout: .seconds(10))
        while !process.standardOutput.contains("\n") {
            if process.poll() != nil { throw TestFailure("dbus-daemon exited: \(process.standardError)") }
            guard !deadline.hasPassed else {
                process.stop(SIGKILL)
                throw TestFailure("dbus-daemon printed no address within \(deadline.account)")
            }
            usleep(2000)
        }
        return (process, process.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// What the daemon wrote to standard error so far: its warnings about the configuration
    /// (an unknown user in a policy, a file it could not read) are there.
    public var standardError: String { process.standardError }

    /// Stops the daemon (its clients see the bus go away) and removes its directory.
    public func stop(_ signal: Int32 = SIGTERM) {
        process.stop(signal)
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }
}

/// A failure of the harness itself (a tool that would not start, a timeout).
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Runs `body` with a fresh private bus and always stops it afterwards.
public func withPrivateBus<T>(
    _ flavour: PrivateBus.Flavour = .session, _ body: (PrivateBus) async throws -> T
) async throws -> T {
    let bus = try PrivateBus(flavour)
    defer { bus.stop() }
    return try await body(bus)
}
