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
        let config = directory.appendingPathComponent("bus.conf")
        try """
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
            """.write(to: config, atomically: true, encoding: .utf8)
        process = try ChildProcess("dbus-daemon", ["--nofork", "--print-address=1", "--config-file=\(config.path)"])
        // The daemon prints its address once it listens.
        let deadline = ContinuousClock.now + .seconds(10)
        while !process.standardOutput.contains("\n") {
            if process.poll() != nil { throw TestFailure("dbus-daemon exited: \(process.standardError)") }
            guard ContinuousClock.now < deadline else {
                process.stop(SIGKILL)
                throw TestFailure("dbus-daemon printed no address")
            }
            usleep(2000)
        }
        address = process.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

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
