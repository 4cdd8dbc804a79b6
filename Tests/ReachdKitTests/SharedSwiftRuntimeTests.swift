import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// `Scripts/install --swift-runtime shared` (issue 38): reachd and reachctl linked to the Swift
/// runtime as shared libraries, for an image that ships that runtime once for every Swift program
/// (Yocto's meta-swift). They carry no path to this machine's toolchain, so they run only where the
/// loader finds the runtime: here with LD_LIBRARY_PATH at the toolchain's libraries, as an image's
/// library path would have them. Staged with PREFIX=/usr, as an image's tree; built in its own
/// folder beside PackageTests' static build.
@Suite("The Swift runtime as shared libraries", .serialized, .timeLimit(.minutes(25)))
struct SharedSwiftRuntimeTests {
    static let installed = Task<String, any Error> {
        let destination = "\(PackageTests.scratchPath)/shared-swift-runtime"
        try? FileManager.default.removeItem(atPath: destination)
        let result = try await ScratchInstall.run(prefix: "/usr", destination: destination, ["--swift-runtime", "shared", "--no-manifest"])
        guard result.succeeded else { throw TestFailure("Scripts/install --swift-runtime shared failed: \(result.transcript)") }
        return destination
    }

    /// The toolchain's Swift runtime libraries (libswiftCore.so and the rest), beside `swift`.
    static func runtimeDirectory() async throws -> String {
        let swift = try await runToolChecked("/bin/sh", ["-c", "readlink -f \"$(command -v swift || echo /opt/swift/usr/bin/swift)\""])
            .standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let directory = URL(fileURLWithPath: swift).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("lib/swift/linux").path
        guard FileManager.default.fileExists(atPath: "\(directory)/libswiftCore.so") else {
            throw TestFailure("no libswiftCore.so in \(directory) (the toolchain of \(swift))")
        }
        return directory
    }

    @Test("the shared form needs libswiftCore.so and carries no path to this machine's toolchain: without the runtime on the library path it does not start, with it reachd and reachctl answer")
    func needsTheRuntimeOnTheLibraryPath() async throws {
        let root = try await Self.installed.value
        let runtime = try await Self.runtimeDirectory()
        for program in ["reachd", "reachctl"] {
            let binary = "\(root)/usr/bin/\(program)"
            let dynamic = try await runToolChecked("readelf", ["-d", binary]).standardOutput
            #expect(dynamic.contains("[libswiftCore.so]"), "\(program): \(dynamic)")
            #expect(!dynamic.contains(runtime) && !dynamic.contains("/opt/swift"), "\(program) names the toolchain: \(dynamic)")
            let alone = try await runTool(binary, ["--version"], environment: ["LD_LIBRARY_PATH": ""])
            #expect(alone.status == 127 && alone.standardError.contains("libswiftCore.so"), "\(program): \(alone.transcript)")
            let withRuntime = try await runTool(binary, ["--version"], environment: ["LD_LIBRARY_PATH": runtime])
            #expect(withRuntime.succeeded && withRuntime.standardOutput.hasPrefix("\(program) "), "\(program): \(withRuntime.transcript)")
        }
    }

    @Test("the shared form serves the session bus by D-Bus activation with the runtime on the library path: reachctl status and watch answer from it, and it maps the toolchain's libswiftCore.so")
    func statusAndWatchOverTheSessionBus() async throws {
        let root = try await Self.installed.value
        let runtime = try await Self.runtimeDirectory()
        // The session bus reads the staged service file; its Exec= names /usr/bin, so point it into the tree.
        let services = try ScratchInstall.makeDestination("shared-services")
        defer { try? FileManager.default.removeItem(atPath: services) }
        let original = try String(contentsOfFile: "\(root)/usr/share/dbus-1/services/io.reachd.Reachability1.service", encoding: .utf8)
        try original.replacingOccurrences(of: "Exec=/usr/bin/reachd", with: "Exec=\(root)/usr/bin/reachd")
            .write(toFile: "\(services)/io.reachd.Reachability1.service", atomically: false, encoding: .utf8)
        let session = try PrivateBus(.session, serviceDirectory: services)
        defer { session.stop() }
        // What the image's loader path gives every process, here given to the activated reachd.
        let environment = try await session.dbusSend(["--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                      "org.freedesktop.DBus.UpdateActivationEnvironment",
                                                      "dict:string:string:DBUS_SYSTEM_BUS_ADDRESS,\(absentSystemBusAddress()),LD_LIBRARY_PATH,\(runtime)"])
        #expect(environment.succeeded, "\(environment.transcript)")
        let client = ["DBUS_SESSION_BUS_ADDRESS": session.address, "LD_LIBRARY_PATH": runtime]
        let status = try await runTool("\(root)/usr/bin/reachctl", ["status", "--json", "--service", "session"], environment: client)
        #expect(status.succeeded && status.standardOutput.contains("\"backend\":\"netlink\""), "\(status.transcript)")
        let pid = try #require(try await session.processID(of: "io.reachd.Reachability1"))
        defer { kill(pid, SIGTERM) }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe") == "\(root)/usr/bin/reachd")
        // cat: Foundation reads a /proc file (size 0) only in part.
        let maps = try await runToolChecked("/bin/cat", ["/proc/\(pid)/maps"]).standardOutput
        #expect(maps.contains("\(runtime)/libswiftCore.so"), "the activated reachd maps the shared runtime")
        // watch prints the current state at once, then runs until interrupted.
        let watch = try await runTool("/usr/bin/timeout", ["--signal=INT", "3", "\(root)/usr/bin/reachctl", "watch", "--json", "--service", "session"],
                                      environment: client)
        #expect(watch.standardOutput.contains("\"backend\":\"netlink\""), "\(watch.transcript)")
        #expect(!watch.standardError.contains("error while loading shared libraries"), "\(watch.transcript)")
    }

    @Test("the shared form serves as the system instance: reachd --system as user reachd on Debian's system bus, with the runtime on the library path, answers reachctl run by another user")
    func systemInstance() async throws {
        let root = try await Self.installed.value
        let runtime = try await Self.runtimeDirectory()
        try await withDebianSystemBus { bus, _ in
            let reachd = try SystemInstance.asUser(SystemInstance.serviceUser, bus: bus, "\(root)/usr/bin/reachd", ["--system", "--no-config"],
                                                   environment: ["LD_LIBRARY_PATH": runtime])
            defer { reachd.stop(); reachd.removeOutput() }
            try await eventually(timeout: .seconds(30), "the shared reachd --system owns its name; its stderr:\n\(reachd.standardError)") {
                if let status = reachd.poll() { throw TestFailure("reachd --system exited with status \(status): \(reachd.standardError)") }
                return try await bus.processID(of: "io.reachd.Reachability1") == reachd.pid
            }
            let status = try await SystemInstance.run(as: SystemInstance.nobody, bus: bus, "\(root)/usr/bin/reachctl",
                                                      ["status", "--json", "--service", "system"], environment: ["LD_LIBRARY_PATH": runtime])
            #expect(status.succeeded && status.standardOutput.contains("\"backend\":"), "\(status.transcript)")
        }
    }
}
