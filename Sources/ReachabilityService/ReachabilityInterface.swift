import DBus
import ReachabilityCore

/// The declaration of `io.reachd.Reachability1` on `/io/reachd/Reachability1`:
/// contract version 1 (dbus/io.reachd.Reachability1.xml is the source of truth,
/// and a test holds this declaration to it).
enum ReachabilityInterface {
    static func declaration(
        publisher: ReachabilityPublisher, monitors: HostMonitorRegistry, session: Connection
    ) -> InterfaceDeclaration {
        let current = { @Sendable in publisher.current }
        return InterfaceDeclaration(
            name: ReachabilityPublisher.interface,
            methods: [
                MethodDeclaration(name: "GetStatus", outputs: ["status": "i", "flags": "u"]) { _, _ in
                    let value = current()
                    return [.int32(value.status.rawValue), .uint32(value.flags.rawValue)]
                },
                // Validation answers at once; the evaluation (which may resolve a
                // name) runs as a task so a slow resolver holds up no one else.
                MethodDeclaration(name: "ManagerForDomain", inputs: ["domain": "s"], outputs: ["monitor": "o"],
                                  handler: .deferred { call in
                    let host = try HostSpecification(domain: call.body[0].stringValue ?? "")
                    return [.objectPath(try await monitors.create(host: host, owner: try sender(of: call), session: session))]
                }),
                MethodDeclaration(name: "ManagerForAddress", inputs: ["address": "s"], outputs: ["monitor": "o"],
                                  handler: .deferred { call in
                    let host = try HostSpecification(address: call.body[0].stringValue ?? "")
                    return [.objectPath(try await monitors.create(host: host, owner: try sender(of: call), session: session))]
                }),
                MethodDeclaration(name: "CheckHost", inputs: ["host": "s"], outputs: ["status": "i", "flags": "u"],
                                  handler: .deferred { call in
                    let report = await monitors.check(try HostSpecification(domain: call.body[0].stringValue ?? ""))
                    return [.int32(report.status.rawValue), .uint32(report.flags.rawValue)]
                }),
            ],
            properties: [
                PropertyDeclaration(name: "Status", signature: "i", read: { .int32(current().status.rawValue) }),
                PropertyDeclaration(name: "Flags", signature: "u", read: { .uint32(current().flags.rawValue) }),
                PropertyDeclaration(name: "Reachable", signature: "b", read: { .boolean(current().reachable) }),
                PropertyDeclaration(name: "ReachableViaWWAN", signature: "b", read: { .boolean(current().reachableViaWWAN) }),
                PropertyDeclaration(name: "ReachableViaWiFi", signature: "b", read: { .boolean(current().reachableViaWiFi) }),
                PropertyDeclaration(name: "StatusString", signature: "s", read: { .string(current().statusString) }),
                PropertyDeclaration(name: "InterfaceType", signature: "s", read: { .string(current().interfaceType.rawValue) }),
                PropertyDeclaration(name: "Interface", signature: "s", read: { .string(current().interface) }),
                PropertyDeclaration(name: "Metered", signature: "b", read: { .boolean(current().metered) }),
                PropertyDeclaration(name: "Connectivity", signature: "s", read: { .string(current().connectivity.rawValue) }),
                PropertyDeclaration(name: "Backend", signature: "s", read: { .string(current().backendName) }),
                PropertyDeclaration(name: "MonitorCount", signature: "u", read: { .uint32(UInt32(monitors.count)) }),
            ],
            signals: [
                SignalDeclaration(name: "ReachabilityChanged", arguments: ["status": "i", "flags": "u"]),
            ])
    }

    private static func sender(of call: Message) throws -> BusName {
        guard let sender = call.sender else { throw DBusError.invalidArgs("the call has no sender to own the monitor") }
        return sender
    }
}
