import ReachdDBus
import Foundation
import ReachdTestSupport
import Testing

/// The object reachd serves is exactly the contract in
/// dbus/io.reachd.Reachability1.xml (docs/app-developers/dbus-contract.md: "the service's
/// Introspect reply is tested against it"), with the standard interfaces beside it.
@Suite("reachd serves the contract of dbus/io.reachd.Reachability1.xml", .timeLimit(.minutes(1)))
struct ContractTests {
    static let interface = ReachdProcess.interface

    static func contract() throws -> InterfaceContract {
        let document = try IntrospectionDocument(xml: contractFile("io.reachd.Reachability1.xml"))
        return try #require(document.interfaces[interface], "the contract file declares \(interface)")
    }

    @Test("the Introspect reply declares exactly the contract's methods, properties and signals")
    func introspectReplyMatchesContract() async throws {
        let contract = try Self.contract()
        try await withPrivateBus { session in
            try await withReachd(session: session, systemBus: absentSystemBusAddress()) { _ in
                let xml = try await withConnection(to: session) { client in
                    try await client.call(destination: BusName(ReachdProcess.busName), path: ObjectPath(ReachdProcess.path),
                                          interface: .introspectable, member: "Introspect").first?.stringValue
                }
                let served = try IntrospectionDocument(xml: try #require(xml))
                let reachability = try #require(served.interfaces[Self.interface], "the reply declares \(Self.interface):\n\(xml ?? "")")
                #expect(Set(reachability.methods.keys) == Set(contract.methods.keys))
                #expect(Set(reachability.properties.keys) == Set(contract.properties.keys))
                #expect(Set(reachability.signals.keys) == Set(contract.signals.keys))
                for (name, arguments) in contract.methods {
                    #expect(reachability.methods[name] == arguments, "method \(name)")
                }
                for (name, property) in contract.properties {
                    #expect(reachability.properties[name] == property, "property \(name)")
                    #expect(property.access == "read", "the contract makes \(name) read-only")
                }
                for (name, arguments) in contract.signals {
                    #expect(reachability.signals[name] == arguments, "signal \(name)")
                }
                for standard in ["org.freedesktop.DBus.Introspectable", "org.freedesktop.DBus.Properties", "org.freedesktop.DBus.Peer"] {
                    #expect(served.interfaces[standard] != nil, "the reply declares \(standard)")
                }
            }
        }
    }

    @Test("a host monitor's Introspect reply declares exactly dbus/io.reachd.Reachability1.Monitor.xml")
    func monitorIntrospectionMatchesContract() async throws {
        let monitorInterface = "io.reachd.Reachability1.Monitor"
        let document = try IntrospectionDocument(xml: contractFile("io.reachd.Reachability1.Monitor.xml"))
        let contract = try #require(document.interfaces[monitorInterface], "the contract file declares \(monitorInterface)")
        try await withPrivateBus { session in
            try await withReachd(session: session, systemBus: absentSystemBusAddress()) { _ in
                // The monitor lives as long as the connection that made it, so ask on one connection.
                try await withConnection(to: session) { client in
                    let reply = try await client.call(
                        destination: BusName(ReachdProcess.busName), path: ObjectPath(ReachdProcess.path),
                        interface: InterfaceName(ReachdProcess.interface), member: "ManagerForAddress", body: [.string("127.0.0.1")])
                    guard case .objectPath(let monitor)? = reply.first else {
                        Issue.record("ManagerForAddress answered \(reply)")
                        return
                    }
                    let xml = try await client.call(destination: BusName(ReachdProcess.busName), path: monitor,
                                                    interface: .introspectable, member: "Introspect").first?.stringValue
                    let served = try IntrospectionDocument(xml: try #require(xml))
                    let declared = try #require(served.interfaces[monitorInterface], "the reply declares \(monitorInterface):\n\(xml ?? "")")
                    #expect(declared == contract)
                    for standard in ["org.freedesktop.DBus.Introspectable", "org.freedesktop.DBus.Properties", "org.freedesktop.DBus.Peer"] {
                        #expect(served.interfaces[standard] != nil, "the reply declares \(standard)")
                    }
                }
            }
        }
    }

    @Test("busctl introspect lists the contract's members with their signatures, properties read-only")
    func busctlIntrospectMatchesContract() async throws {
        let contract = try Self.contract()
        var expected: Set<String> = []
        func signature(_ arguments: [InterfaceContract.Argument], _ direction: String) -> String {
            let joined = arguments.filter { $0.direction == direction }.map(\.type).joined()
            return joined.isEmpty ? "-" : joined
        }
        for (name, arguments) in contract.methods {
            expected.insert(".\(name) method \(signature(arguments, "in")) \(signature(arguments, "out")) -")
        }
        for (name, property) in contract.properties {
            let constant = property.annotations["org.freedesktop.DBus.Property.EmitsChangedSignal"] == "const"
            expected.insert(".\(name) property \(property.type) \(constant ? "const" : "emits-change")")
        }
        for (name, arguments) in contract.signals {
            expected.insert(".\(name) signal \(signature(arguments, "out")) - -")
        }
        try await withPrivateBus { session in
            try await withReachd(session: session, systemBus: absentSystemBusAddress()) { _ in
                let result = try await session.busctl("introspect", ReachdProcess.busName, ReachdProcess.path)
                #expect(result.succeeded, "\(result.transcript)")
                // Rows of our interface: from its header to the next interface's.
                var rows: Set<String> = []
                var inside = false
                for line in result.standardOutput.split(separator: "\n") {
                    let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
                    guard words.count >= 2 else { continue }
                    if words[1] == "interface" { inside = words[0] == Self.interface; continue }
                    guard inside else { continue }
                    // A property row is NAME property TYPE VALUE… FLAGS…; the value may contain spaces.
                    rows.insert(words[1] == "property"
                                ? ([words[0], words[1], words[2]] + words.filter { ["emits-change", "writable", "const", "emits-invalidation"].contains($0) }).joined(separator: " ")
                                : words.joined(separator: " "))
                }
                #expect(rows == expected, "busctl introspect:\n\(result.transcript)")
            }
        }
    }

    @Test("busctl tree shows the object path and its parents, nothing else")
    func busctlTreeShowsObjectPath() async throws {
        try await withPrivateBus { session in
            try await withReachd(session: session, systemBus: absentSystemBusAddress()) { _ in
                let tree = try await session.busctl("tree", "--list", ReachdProcess.busName)
                #expect(tree.standardOutput == "/\n/io\n/io/reachd\n/io/reachd/Reachability1\n", "\(tree.transcript)")
            }
        }
    }

    @Test("Properties.GetAll lists every property of the contract, and Get reads each")
    func getAllListsEveryProperty() async throws {
        let contract = try Self.contract()
        try await withPrivateBus { session in
            try await withReachd(session: session, systemBus: absentSystemBusAddress()) { _ in
                let getAll = try await session.gdbus("call", "--dest", ReachdProcess.busName, "--object-path", ReachdProcess.path,
                                                     "--method", "org.freedesktop.DBus.Properties.GetAll", Self.interface)
                #expect(getAll.succeeded, "\(getAll.transcript)")
                let names = Set(getAll.standardOutput.matches(of: /'(\w+)': </).map { String($0.output.1) })
                #expect(names == Set(contract.properties.keys), "\(getAll.transcript)")
                for (name, property) in contract.properties {
                    let get = try await session.busctl("get-property", ReachdProcess.busName, ReachdProcess.path, Self.interface, name)
                    #expect(get.succeeded && get.standardOutput.hasPrefix(property.type + " "), "\(name): \(get.transcript)")
                }
            }
        }
    }

    @Test("Peer.Ping answers and Peer.GetMachineId gives the machine's ID")
    func peerInterfaceAnswers() async throws {
        try await withPrivateBus { session in
            try await withReachd(session: session, systemBus: absentSystemBusAddress()) { _ in
                let ping = try await session.busctl("call", ReachdProcess.busName, ReachdProcess.path, "org.freedesktop.DBus.Peer", "Ping")
                #expect(ping.succeeded && ping.standardOutput.isEmpty, "\(ping.transcript)")
                let machineID = try await session.busctl("call", ReachdProcess.busName, ReachdProcess.path,
                                                         "org.freedesktop.DBus.Peer", "GetMachineId")
                let expected = try Self.machineID()
                #expect(machineID.standardOutput == "s \"\(expected)\"\n", "\(machineID.transcript)")
            }
        }
    }

    @Test("Set of any property answers PropertyReadOnly, and the value stays")
    func setAnswersPropertyReadOnly() async throws {
        try await withPrivateBus { session in
            try await withReachd(session: session, systemBus: absentSystemBusAddress()) { _ in
                let set = try await session.busctl("set-property", ReachdProcess.busName, ReachdProcess.path, Self.interface,
                                                   "Status", "i", "0")
                #expect(!set.succeeded)
                #expect(set.standardError.contains("read-only"), "\(set.transcript)")
                let status = try await session.busctl("get-property", ReachdProcess.busName, ReachdProcess.path, Self.interface, "Status")
                #expect(status.standardOutput == "i 2\n", "the kernel's view in reachd's namespace: \(status.transcript)")
            }
        }
    }

    static func machineID() throws -> String {
        for path in ["/etc/machine-id", "/var/lib/dbus/machine-id"] {
            if let text = try? String(contentsOfFile: path, encoding: .utf8) {
                return text.trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }
        throw TestFailure("no machine ID on this machine")
    }
}
