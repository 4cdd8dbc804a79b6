import Foundation
import Glibc
import ReachdTestSupport
import Testing

/// A device's boot (contract 7, §4): BusyBox runs its `sysinit` and `wait` lines, where a boot
/// script's `reachctl wait` is, before the `respawn` lines that start dbus-daemon, and NetworkManager
/// comes after the bus. Here the device is a container (its own network, a default route, no
/// bus), and its system bus's socket is a path whose folders do not exist yet.
@Suite("A boot: reachctl wait before the system bus", .timeLimit(.minutes(3)))
struct BootOrderTests {
    @Test("wait --level online started before the system bus exists waits for it at no cost, and exits 0 once NetworkManager's check says full")
    func waitOutlastsAMissingBus() async throws {
        try await withContainer { container in
            // The device's root: there, its /run not yet (the boot makes it).
            let device = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-boot-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: device, withIntermediateDirectories: false)
            defer { try? FileManager.default.removeItem(at: device) }
            let run = device.appendingPathComponent("run")
            let socket = run.appendingPathComponent("dbus/system_bus_socket").path
            let boot = ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(socket)"]

            let wait = try container.process(Executables.reachctl, ["wait", "--level", "online", "--timeout", "120", "--json"],
                                             environment: boot)
            defer {
                wait.stop(SIGKILL)
                wait.removeOutput()
            }
            try await eventually(timeout: .seconds(20), "the wait runs: \(wait.standardError)") {
                (try? String(contentsOfFile: "/proc/\(wait.pid)/comm", encoding: .utf8)) == "reachctl\n"
            }
            // The kernel answers meanwhile, and says what the wait is for.
            let meanwhile = try await container.run(Executables.reachctl, ["wait", "--level", "online", "--timeout", "1"],
                                                    environment: boot)
            #expect(meanwhile.status == 1, "no bus yet is not 'never': \(meanwhile.transcript)")
            #expect(meanwhile.standardError.contains("waiting for the system bus (nothing at \(socket) yet)"), "\(meanwhile.transcript)")
            #expect(wait.poll() == nil, "it waits: \(wait.standardError)")

            // Waiting for the bus costs nothing: no look at its folders, no try to connect, while
            // nothing happens there (the container's own link events are the kernel's answer).
            let calls = try await systemCalls(of: wait.pid, over: .seconds(2))
                .filter { $0.contains(device.path) || $0.contains("connect(") }
            #expect(calls.isEmpty, "system calls while waiting for the bus: \(calls.prefix(20))")

            // The boot makes /run, then the bus starts, with NetworkManager (and its check) on it.
            try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true)
            let bus = try PrivateBus(.system)
            defer { bus.stop() }
            let networkManager = try await NetworkManagerMock(on: bus)
            defer { networkManager.stop() }
            for property in ["ConnectivityCheckEnabled", "ConnectivityCheckAvailable"] {
                try await networkManager.call(NetworkManagerMock.manager, NetworkManagerMock.mockInterface, "AddProperty",
                                              "ssv", NetworkManagerMock.name, property, "b", "true")
            }
            #expect(wait.poll() == nil, "no socket at \(socket) yet: it still waits. \(wait.standardError)")

            // The socket appears where the address says (the bus's own, reached through a link).
            let appeared = ContinuousClock.now
            try FileManager.default.createDirectory(at: run.appendingPathComponent("dbus"), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: socket, withDestinationPath: bus.directory.appendingPathComponent("bus").path)
            #expect(try await wait.exit(timeout: .seconds(30)) == 0, "\(wait.standardOutput)\(wait.standardError)")
            let took = ContinuousClock.now - appeared
            #expect(wait.standardOutput.contains("\"level\":\"online\""), "\(wait.standardOutput)")
            print("BootOrderTests: wait exited 0 \(took) after the bus's socket appeared")
        }
    }

    @Test("the bus that was not there is followed once it is: reachctl status in process reports NetworkManager, and the wait's detail is gone")
    func theEngineFollowsTheBusOnceItIsThere() async throws {
        try await withContainer { container in
            let device = FileManager.default.temporaryDirectory.appendingPathComponent("reachd-boot-\(UUID().uuidString.prefix(8))")
            defer { try? FileManager.default.removeItem(at: device) }
            let socket = device.appendingPathComponent("run/dbus/system_bus_socket").path
            let boot = ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(socket)"]
            // `watch` keeps one engine running from before the bus to after it.
            let watch = try container.process(Executables.reachctl, ["watch", "--json"], environment: boot)
            defer {
                watch.stop(SIGKILL)
                watch.removeOutput()
            }
            try await eventually(timeout: .seconds(20), "the first value: \(watch.standardError)") {
                watch.standardOutput.contains("\"backend\":\"netlink\"")
            }
            let bus = try PrivateBus(.system)
            defer { bus.stop() }
            let networkManager = try await NetworkManagerMock(on: bus)
            defer { networkManager.stop() }
            try FileManager.default.createDirectory(atPath: (socket as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: socket, withDestinationPath: bus.directory.appendingPathComponent("bus").path)
            try await eventually(timeout: .seconds(30), "NetworkManager answers: \(watch.standardOutput)") {
                watch.standardOutput.contains("\"backend\":\"networkmanager\"")
            }
        }
    }
}
