import Foundation

/// A private `dbus-daemon` for one test: its own socket in a temporary directory, a policy that
/// allows everything, and optionally a folder of activation files. Tests never touch the machine's buses.
final class PrivateBus: Sendable {
    enum Flavour: String, Sendable { case session, system }

    let address: String
    let directory: URL
    private let process: ChildProcess

    /// `activationFiles`: `.service` files by name, for D-Bus activation on this bus.
    init(_ flavour: Flavour = .session, activationFiles: [String: String] = [:]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("reachability-bus-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let services = directory.appendingPathComponent("services")
        try FileManager.default.createDirectory(at: services, withIntermediateDirectories: true)
        for (name, contents) in activationFiles {
            try contents.write(to: services.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let socket = directory.appendingPathComponent("bus").path
        let config = directory.appendingPathComponent("bus.conf")
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>\(flavour.rawValue)</type>
              <listen>unix:path=\(socket)</listen>
              <auth>EXTERNAL</auth>
              <servicedir>\(services.path)</servicedir>
              <policy context="default">
                <allow user="*"/>
                <allow own="*"/>
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
              </policy>
            </busconfig>
            """.write(to: config, atomically: true, encoding: .utf8)
        process = try ChildProcess("dbus-daemon", ["--nofork", "--print-address=1", "--config-file=\(config.path)"])
        // The daemon prints its address once it listens.
        let deadline = ContinuousClock.now + .seconds(10)
        while !process.standardOutput.contains("\n") {
            if process.poll() != nil { throw TestFailure("dbus-daemon exited: \(process.standardError)") }
            guard ContinuousClock.now < deadline else { throw TestFailure("dbus-daemon printed no address") }
            usleep(2000)
        }
        address = process.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func stop() {
        process.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }

    /// `busctl --address=ADDRESS ARGUMENTS…`
    func busctl(_ arguments: String...) async throws -> ToolResult {
        try await runTool("busctl", ["--address=\(address)"] + arguments)
    }

    /// The process owning `name` on this bus, if any.
    func ownerProcess(of name: String) async throws -> pid_t? {
        let result = try await busctl("call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                      "GetConnectionUnixProcessID", "s", name)
        guard result.succeeded else { return nil }
        return result.standardOutput.split(separator: " ").last.flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// Whether `name` has an owner on this bus.
    func hasOwner(_ name: String) async throws -> Bool {
        try await busctl("status", name).succeeded
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
