import DBus
import ReachabilityCore

/// The declaration of `io.reachd.Reachability1` on `/io/reachd/Reachability1`:
/// contract version 1 (dbus/io.reachd.Reachability1.xml is the source of truth,
/// and a test holds this declaration to it).
enum ReachabilityInterface {
    static func declaration(publisher: ReachabilityPublisher) -> InterfaceDeclaration {
        let current = { @Sendable in publisher.current }
        return InterfaceDeclaration(
            name: ReachabilityPublisher.interface,
            methods: [
                MethodDeclaration(name: "GetStatus", outputs: ["status": "i", "flags": "u"]) { _, _ in
                    let value = current()
                    return [.int32(value.status.rawValue), .uint32(value.flags.rawValue)]
                },
                MethodDeclaration(name: "ManagerForDomain", inputs: ["domain": "s"], outputs: ["monitor": "o"]) { _, _ in
                    throw notYet("ManagerForDomain")
                },
                MethodDeclaration(name: "ManagerForAddress", inputs: ["address": "s"], outputs: ["monitor": "o"]) { _, _ in
                    throw notYet("ManagerForAddress")
                },
                MethodDeclaration(name: "CheckHost", inputs: ["host": "s"], outputs: ["status": "i", "flags": "u"]) { _, _ in
                    throw notYet("CheckHost")
                },
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
            ],
            signals: [
                SignalDeclaration(name: "ReachabilityChanged", arguments: ["status": "i", "flags": "u"]),
            ])
    }

    private static func notYet(_ method: String) -> DBusError {
        .notSupported("\(method) is not available in this version of reachd yet")
    }
}
