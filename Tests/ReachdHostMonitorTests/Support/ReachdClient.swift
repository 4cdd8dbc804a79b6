import ReachdDBus
import ReachdCore
import Synchronization
import ReachdTestSupport

/// A client of reachd on a private session bus, through the ReachdDBus library:
/// one bus connection, so the monitors it makes belong to it and live as
/// long as it does (a `busctl call`'s monitor goes when busctl exits).
final class ReachdClient: Sendable {
    static let busName: BusName = "io.reachd.Reachability1"
    static let mainPath: ObjectPath = "/io/reachd/Reachability1"
    static let mainInterface: InterfaceName = "io.reachd.Reachability1"
    static let monitorInterface: InterfaceName = "io.reachd.Reachability1.Monitor"
    static let monitorsPath: ObjectPath = "/io/reachd/Reachability1/Monitors"

    let connection: Connection
    /// The session bus this client is on (another client may join it).
    let sessionBus: PrivateBus
    /// Where it connected: the bus, or a proxy onto it in reachd's network namespace.
    let address: String

    private init(connection: Connection, sessionBus: PrivateBus, address: String) {
        self.connection = connection
        self.sessionBus = sessionBus
        self.address = address
    }

    /// A client of `bus`, connected at `address` (default: the bus itself).
    static func open(_ bus: PrivateBus, at address: String? = nil) async throws -> ReachdClient {
        let address = address ?? bus.address
        return ReachdClient(connection: try await Connection.open(address: address), sessionBus: bus, address: address)
    }

    func close() async {
        await connection.close()
    }

    // MARK: The main object

    func checkHost(_ host: String) async throws -> HostAnswer {
        HostAnswer(try await callMain("CheckHost", [.string(host)]))
    }

    func managerForDomain(_ domain: String) async throws -> ObjectPath {
        try objectPath(try await callMain("ManagerForDomain", [.string(domain)]))
    }

    func managerForAddress(_ address: String) async throws -> ObjectPath {
        try objectPath(try await callMain("ManagerForAddress", [.string(address)]))
    }

    func monitorCount() async throws -> UInt32 {
        guard case .uint32(let count) = try await property("MonitorCount") else {
            throw TestFailure("MonitorCount is not a u")
        }
        return count
    }

    /// A property of the main object (or of `path` on `interface`).
    func property(_ name: String, of path: ObjectPath = mainPath, interface: InterfaceName = mainInterface) async throws -> DBusValue {
        let reply = try await connection.call(
            destination: Self.busName, path: path, interface: .properties, member: "Get",
            body: [.string(interface.rawValue), .string(name)], timeout: .seconds(10))
        guard let value = reply.first else { throw TestFailure("Get \(name) answered nothing") }
        return value.unwrappingVariant
    }

    func string(_ name: String, of path: ObjectPath = mainPath, interface: InterfaceName = mainInterface) async throws -> String {
        guard let text = try await property(name, of: path, interface: interface).stringValue else {
            throw TestFailure("\(name) on \(path) is not a string")
        }
        return text
    }

    /// Status and Flags of the main object, from `GetStatus`.
    func status() async throws -> HostAnswer {
        HostAnswer(try await callMain("GetStatus", []))
    }

    // MARK: Monitors

    /// A monitor's Status and Flags, read as properties.
    func answer(of monitor: ObjectPath) async throws -> HostAnswer {
        let status = try await property("Status", of: monitor, interface: Self.monitorInterface)
        let flags = try await property("Flags", of: monitor, interface: Self.monitorInterface)
        return HostAnswer([status, flags])
    }

    func host(of monitor: ObjectPath) async throws -> String {
        try await string("Host", of: monitor, interface: Self.monitorInterface)
    }

    func release(_ monitor: ObjectPath) async throws {
        _ = try await connection.call(destination: Self.busName, path: monitor, interface: Self.monitorInterface,
                                      member: "Release", timeout: .seconds(10))
    }

    /// The monitor objects reachd exports now, from introspecting their parent
    /// (which does not exist while there are none).
    func exportedMonitors() async throws -> [String] {
        let xml: String
        do {
            let reply = try await connection.call(destination: Self.busName, path: Self.monitorsPath,
                                                  interface: .introspectable, member: "Introspect", timeout: .seconds(10))
            xml = reply.first?.stringValue ?? ""
        } catch let error as DBusError where error.name == "org.freedesktop.DBus.Error.UnknownObject" {
            return []
        }
        return xml.split(separator: "<node name=\"").dropFirst().compactMap { $0.split(separator: "\"").first.map(String.init) }
    }

    /// Signals from reachd matching `member` on `interface`, recorded from now on.
    func recordSignals(interface: InterfaceName, member: MemberName, path: ObjectPath? = nil) async throws -> SignalRecorder {
        let stream = try await connection.signals(matching: MatchRule(interface: interface, member: member, path: path))
        return SignalRecorder(stream)
    }

    // MARK: Plumbing

    private func callMain(_ member: MemberName, _ body: [DBusValue]) async throws -> [DBusValue] {
        try await connection.call(destination: Self.busName, path: Self.mainPath, interface: Self.mainInterface,
                                  member: member, body: body, timeout: .seconds(20))
    }

    private func objectPath(_ reply: [DBusValue]) throws -> ObjectPath {
        guard case .objectPath(let path)? = reply.first else { throw TestFailure("expected an object path, got \(reply)") }
        return path
    }
}

/// A (status, flags) pair as reachd answers it.
struct HostAnswer: Equatable, Sendable, CustomStringConvertible {
    let status: Int32
    let flags: UInt32

    init(status: Int32, flags: ReachabilityFlags) {
        self.status = status
        self.flags = flags.rawValue
    }

    init(_ values: [DBusValue]) {
        if values.count == 2, case .int32(let status) = values[0], case .uint32(let flags) = values[1] {
            self.status = status
            self.flags = flags
        } else {
            self.status = Int32.min
            self.flags = UInt32.max
        }
    }

    static let unknown = HostAnswer(status: -1, flags: [])
    static let notReachable = HostAnswer(status: 0, flags: [])
    /// Reachable via "WiFi" (any non-cellular medium), through a gateway.
    static let reachable = HostAnswer(status: 2, flags: [.reachable])
    static let reachableDirect = HostAnswer(status: 2, flags: [.reachable, .isDirect])
    static let local = HostAnswer(status: 2, flags: [.reachable, .isLocalAddress, .isDirect])

    var description: String {
        "(status \(status), flags \(ReachabilityFlags(rawValue: flags)) = 0x\(String(flags, radix: 16)))"
    }
}

/// Signals collected in arrival order by a task of their own.
final class SignalRecorder: Sendable {
    private final class Storage: Sendable {
        let messages = Mutex<[Message]>([])
    }

    private let storage: Storage
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<Message>) {
        let storage = Storage()
        self.storage = storage
        task = Task {
            for await message in stream {
                storage.messages.withLock { $0.append(message) }
            }
        }
    }

    var messages: [Message] { storage.messages.withLock { $0 } }

    /// `ReachabilityChanged` bodies sent from `path`, in order.
    func reachabilityChanges(of path: ObjectPath) -> [HostAnswer] {
        messages.filter { $0.path == path && $0.member == "ReachabilityChanged" }.map { HostAnswer($0.body) }
    }

    /// Drops what was recorded from `path` so far (a monitor's first answer, say).
    func forget(_ path: ObjectPath) {
        storage.messages.withLock { $0.removeAll { $0.path == path } }
    }

    func stop() {
        task.cancel()
    }

    deinit { stop() }
}

/// Runs `body` with another client that reaches reachd as `other` does (through the same proxy).
func withClient<T>(like other: ReachdClient, _ body: (ReachdClient) async throws -> T) async throws -> T {
    try await withClient(other.sessionBus, at: other.address, body)
}

/// Runs `body` with a client connection, closed on every path out.
func withClient<T>(_ bus: PrivateBus, at address: String? = nil, _ body: (ReachdClient) async throws -> T) async throws -> T {
    let client = try await ReachdClient.open(bus, at: address)
    do {
        let result = try await body(client)
        await client.close()
        return result
    } catch {
        await client.close()
        throw error
    }
}

/// The error a call failed with, or a failure if it succeeded or failed otherwise.
func dbusError<T>(of body: () async throws -> T) async throws -> DBusError {
    do {
        let value = try await body()
        throw TestFailure("expected a D-Bus error, the call answered \(value)")
    } catch let error as DBusError {
        return error
    }
}
