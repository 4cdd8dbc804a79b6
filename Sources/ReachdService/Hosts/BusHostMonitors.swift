import ReachdDBus
import ReachdContract
import ReachdCore
import ReachdEngine

/// The engine's host monitors as objects on reachd's bus: each is exported at
/// `/io/reachd/Reachability1/Monitors/ID` with interface `io.reachd.Reachability1.Monitor`,
/// announces its changes there, and goes with `Release()` from its owner or when the owner
/// leaves the bus.
struct BusHostMonitors: HostMonitorSink {
    let connection: Connection
    /// The main object's cached replies, which carry `MonitorCount`.
    let replies: ReplyGeneration

    func attach(_ monitor: HostMonitor, registry: HostMonitorRegistry) async throws {
        try await connection.export([Self.declaration(of: monitor, registry: registry)],
                                    at: ReachdContract.monitorPath(monitor.id))
    }

    func detach(_ monitors: [HostMonitor]) async {
        await connection.unexport(monitors)
    }

    func publish(_ updates: [(HostMonitor, HostReport)]) async {
        await connection.publish(updates)
    }

    func countChanged() async {
        await connection.announceMonitorCount()
    }

    func countChangedAtOnce() {
        replies.advance()
    }

    private static func declaration(of monitor: HostMonitor, registry: HostMonitorRegistry) -> InterfaceDeclaration {
        let current = { @Sendable [monitor] in monitor.current }
        return InterfaceDeclaration(
            name: ReachdContract.monitorInterface,
            methods: [MethodDeclaration(name: ReachdContract.release) { connection, call in
                // Only the owner may release; the object goes at once, on the thread that answers.
                try registry.release(monitor, by: call.sender?.rawValue)
                connection.unexport([monitor])
                connection.announceMonitorCount()
                return []
            }],
            properties: [
                PropertyDeclaration(name: ReachdContract.host, signature: "s", changeSignal: .constant,
                                    read: { [host = monitor.host] in .string(host.text) }),
            ] + HostReport.contractProperties.map { $0.declaration(current: current) },
            signals: [SignalDeclaration(name: ReachdContract.reachabilityChanged, arguments: ["status": "i", "flags": "u"])])
    }
}

extension Connection {
    /// Announces each monitor's new report in one turn of the loop: stored and announced here,
    /// on the connection's thread, so the order of the announcements is the order of the values.
    func publish(_ updates: [(HostMonitor, HostReport)]) {
        for (monitor, report) in updates {
            let old = monitor.exchange(report)
            _ = try? AnnouncedState<HostReport>.announce(
                from: old, to: report, path: ReachdContract.monitorPath(monitor.id),
                interface: ReachdContract.monitorInterface, on: self)
        }
    }

    func unexport(_ monitors: [HostMonitor]) {
        for monitor in monitors { unexport(ReachdContract.monitorPath(monitor.id)) }
    }

    func announceMonitorCount() {
        try? emitPropertiesChanged(path: ReachdContract.objectPath, interface: ReachdContract.interface,
                                   names: [ReachdContract.monitorCount])
    }
}
