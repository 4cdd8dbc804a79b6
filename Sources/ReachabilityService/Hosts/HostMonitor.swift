import DBus
import ReachabilityContract
import ReachabilityCore

/// One host monitor object: `/io/reachd/Reachability1/Monitors/N`,
/// interface `io.reachd.Reachability1.Monitor`, owned by the connection
/// that asked for it.
final class HostMonitor: Sendable {
    let id: UInt64
    let path: ObjectPath
    let host: HostSpecification
    let owner: BusName
    /// Whose allowance it takes and whose turns its lookups wait for (`CallerPolicy.account(of:)`).
    let account: String
    private let state: AnnouncedState<HostReport>

    init(id: UInt64, host: HostSpecification, owner: BusName, account: String, report: HostReport) {
        self.id = id
        self.path = ReachabilityContract.monitorPath(id)
        self.host = host
        self.owner = owner
        self.account = account
        self.state = AnnouncedState(report, path: path, interface: ReachabilityContract.monitorInterface)
    }

    var current: HostReport { state.current }

    /// Stores `new` and announces what changed.
    func publish(_ new: HostReport, on connection: isolated Connection) throws {
        try state.publish(new, on: connection)
    }

    func declaration(release: @escaping @Sendable (isolated Connection, Message) throws -> [DBusValue]) -> InterfaceDeclaration {
        let current = { @Sendable [self] in self.current }
        return InterfaceDeclaration(
            name: ReachabilityContract.monitorInterface,
            methods: [MethodDeclaration(name: ReachabilityContract.release, release)],
            properties: [
                PropertyDeclaration(name: ReachabilityContract.host, signature: "s", changeSignal: .constant,
                                    read: { [host] in .string(host.text) }),
            ] + HostReport.contractProperties.map { $0.declaration(current: current) },
            signals: [SignalDeclaration(name: ReachabilityContract.reachabilityChanged, arguments: ["status": "i", "flags": "u"])])
    }
}
