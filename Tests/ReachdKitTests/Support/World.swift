import Foundation
import Glibc
import ReachdKit
import Synchronization
import ReachdTestSupport

/// Everything one test runs against: a private session bus, a private system bus with
/// python-dbusmock's NetworkManager, and (unless asked otherwise) reachd between them.
final class World: Sendable {
    let session: PrivateBus
    let system: PrivateBus
    let networkManager: NetworkManagerMock
    private let services = Mutex<[ReachdProcess]>([])

    enum Service { case running, absent, activatable }

    private init(session: PrivateBus, system: PrivateBus, networkManager: NetworkManagerMock) {
        self.session = session
        self.system = system
        self.networkManager = networkManager
    }

    static func make(_ service: Service) async throws -> World {
        let system = try PrivateBus(.system)
        let networkManager: NetworkManagerMock
        do {
            networkManager = try await NetworkManagerMock(on: system)
        } catch {
            system.stop()
            throw error
        }
        // Activated by the bus, reachd runs in the machine's own namespace: --no-override keeps
        // the machine's routes from being checked against the mock's devices, which are not its links.
        let activation = service == .activatable ? [
            "io.reachd.Reachability1.service": """
                [D-BUS Service]
                Name=io.reachd.Reachability1
                Exec=\(Executables.reachd) --system-bus-address '\(system.address)' --no-override
                """,
        ] : [:]
        let session: PrivateBus
        do {
            session = try PrivateBus(.session, activationFiles: activation)
        } catch {
            networkManager.stop()
            system.stop()
            throw error
        }
        let world = World(session: session, system: system, networkManager: networkManager)
        if service == .running {
            do {
                try await world.startService()
            } catch {
                world.stop()
                throw error
            }
        }
        return world
    }

    /// Starts (another) reachd; the newest one is `service`.
    @discardableResult
    func startService(arguments: [String] = []) async throws -> ReachdProcess {
        let service = try await ReachdProcess(session: session, system: system, arguments: arguments)
        services.withLock { $0.append(service) }
        return service
    }

    var service: ReachdProcess? { services.withLock { $0.last } }

    /// A manager of this world's session bus.
    func manager(_ target: NetworkReachabilityManager.Target = .defaultRoute) -> NetworkReachabilityManager {
        NetworkReachabilityManager(target, sessionBusAddress: session.address)
    }

    /// `reachctl ARGUMENTS…` on this world's session bus.
    func reachctl(_ arguments: String..., environment: [String: String] = [:]) async throws -> ToolResult {
        try await runTool(Executables.reachctl, arguments,
                          environment: environment.merging(["DBUS_SESSION_BUS_ADDRESS": session.address]) { $1 })
    }

    func backgroundReachctl(_ arguments: String..., environment: [String: String] = [:]) throws -> BackgroundTool {
        try BackgroundTool(Executables.reachctl, arguments,
                           environment: environment.merging(["DBUS_SESSION_BUS_ADDRESS": session.address]) { $1 })
    }

    /// A property of reachd's main object as `busctl get-property` prints it (`i 2`, `s "wifi"`).
    func serviceProperty(_ name: String) async throws -> String {
        let result = try await session.busctl("get-property", "io.reachd.Reachability1", "/io/reachd/Reachability1",
                                              "io.reachd.Reachability1", name)
        guard result.succeeded else { throw TestFailure("busctl get-property \(name): \(result.transcript)") }
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Waits until reachd publishes `status` (so a test starts from a known state).
    func waitForServiceStatus(_ status: NetworkReachabilityStatus) async throws {
        try await eventually(timeout: .seconds(15), "reachd publishes Status \(status.rawValue)") {
            try await serviceProperty("Status") == "i \(status.rawValue)"
        }
    }

    /// Stops every process of the world: services (including an activated one), mock, buses.
    func stop() {
        for service in services.withLock({ $0 }) { service.stop(SIGKILL) }
        networkManager.stop()
        session.stop()
        system.stop()
    }
}

/// Runs `body` in a fresh world and always stops all of it afterwards.
func withWorld<T>(_ service: World.Service = .running, _ body: (World) async throws -> T) async throws -> T {
    let world = try await World.make(service)
    defer { world.stop() }
    return try await body(world)
}

/// Values a callback saw, in order, readable from the test.
final class Recorder<Value: Sendable & Equatable>: Sendable {
    private let storage = Mutex<[Value]>([])

    func append(_ value: Value) {
        storage.withLock { $0.append(value) }
    }

    var values: [Value] { storage.withLock { $0 } }

    /// Waits until exactly `expected` has been seen.
    func waitUntil(_ expected: [Value], timeout: Duration = .seconds(15)) async throws {
        try await eventually(timeout: timeout, "seen \(expected), so far \(values)") { values == expected }
    }
}
