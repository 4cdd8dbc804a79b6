import DBus
import ReachabilityCore

/// One host monitor object: `/io/reachd/Reachability1/Monitors/N`,
/// interface `io.reachd.Reachability1.Monitor`, owned by the connection
/// that asked for it.
final class HostMonitor: Sendable {
    static let interface: InterfaceName = "io.reachd.Reachability1.Monitor"

    let id: UInt64
    let path: ObjectPath
    let host: HostSpecification
    let owner: BusName
    private let state: AnnouncedState<HostReport>

    init(id: UInt64, host: HostSpecification, owner: BusName, report: HostReport) {
        self.id = id
        self.path = (try? ObjectPath("/io/reachd/Reachability1/Monitors/\(id)")) ?? "/io/reachd/Reachability1/Monitors"
        self.host = host
        self.owner = owner
        self.state = AnnouncedState(report, path: path, interface: Self.interface)
    }

    var current: HostReport { state.current }

    /// Stores `new` and announces what changed.
    func publish(_ new: HostReport, on connection: isolated Connection) throws {
        try state.publish(new, on: connection)
    }

    func declaration(release: @escaping @Sendable (isolated Connection, Message) throws -> [DBusValue]) -> InterfaceDeclaration {
        let current = { @Sendable [self] in self.current }
        return InterfaceDeclaration(
            name: Self.interface,
            methods: [MethodDeclaration(name: "Release", release)],
            properties: [
                PropertyDeclaration(name: "Host", signature: "s", changeSignal: .constant, read: { [host] in .string(host.text) }),
                PropertyDeclaration(name: "Status", signature: "i", read: { .int32(current().status.rawValue) }),
                PropertyDeclaration(name: "Flags", signature: "u", read: { .uint32(current().flags.rawValue) }),
                PropertyDeclaration(name: "Reachable", signature: "b", read: { .boolean(current().status.isReachable) }),
                PropertyDeclaration(name: "ReachableViaWWAN", signature: "b", read: { .boolean(current().status.isReachableViaWWAN) }),
                PropertyDeclaration(name: "ReachableViaWiFi", signature: "b", read: { .boolean(current().status.isReachableViaWiFi) }),
                PropertyDeclaration(name: "StatusString", signature: "s", read: { .string(current().status.string) }),
                PropertyDeclaration(name: "Interface", signature: "s", read: { .string(current().interface) }),
                PropertyDeclaration(name: "InterfaceType", signature: "s", read: { .string(current().interfaceType.rawValue) }),
            ],
            signals: [SignalDeclaration(name: "ReachabilityChanged", arguments: ["status": "i", "flags": "u"])])
    }
}
