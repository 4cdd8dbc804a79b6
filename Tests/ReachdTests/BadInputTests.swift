import ReachdDBus
import ReachdTestSupport
import Testing

/// Whatever a client sends, reachd answers with the precise standard error
/// and keeps serving everyone (docs/app-developers/dbus-contract.md, "Methods and errors").
@Suite("reachd answers bad input with precise errors and keeps serving", .timeLimit(.minutes(2)))
struct BadInputTests {
    /// One kind of bad call: as dbus-send arguments and as a message of ours.
    struct BadCall: Sendable, CustomTestStringConvertible {
        let label: String
        let path: String
        let member: String
        let dbusSendArguments: [String]
        let body: [DBusValue]
        let errorName: String
        /// Words the error's sentence must contain, to help the caller.
        let messageContains: String

        var testDescription: String { label }

        init(_ label: String, path: String = ReachdProcess.path, _ member: String, _ dbusSendArguments: [String],
             _ body: [DBusValue], _ errorName: String, _ messageContains: String) {
            self.label = label
            self.path = path
            self.member = member
            self.dbusSendArguments = dbusSendArguments
            self.body = body
            self.errorName = "org.freedesktop.DBus.Error." + errorName
            self.messageContains = messageContains
        }

        func message() throws -> Message {
            let dot = try #require(member.lastIndex(of: "."))
            return .methodCall(destination: try BusName(ReachdProcess.busName), path: try ObjectPath(path),
                               interface: try InterfaceName(String(member[..<dot])),
                               member: try MemberName(String(member[member.index(after: dot)...])), body: body)
        }
    }

    static let reachability = ReachdProcess.interface
    static let properties = "org.freedesktop.DBus.Properties"

    static let badCalls: [BadCall] = [
        BadCall("GetStatus with an argument", "\(reachability).GetStatus", ["string:x"], [.string("x")], "InvalidArgs", "'()'"),
        BadCall("ManagerForDomain without its argument", "\(reachability).ManagerForDomain", [], [], "InvalidArgs", "'(s)'"),
        BadCall("ManagerForDomain with an integer", "\(reachability).ManagerForDomain", ["int32:3"], [.int32(3)], "InvalidArgs", "'(s)'"),
        BadCall("ManagerForDomain with an extra argument", "\(reachability).ManagerForDomain", ["string:a.example", "string:b"],
                [.string("a.example"), .string("b")], "InvalidArgs", "'(s)'"),
        BadCall("ManagerForAddress without its argument", "\(reachability).ManagerForAddress", [], [], "InvalidArgs", "'(s)'"),
        BadCall("ManagerForAddress with an unsigned integer", "\(reachability).ManagerForAddress", ["uint32:127"], [.uint32(127)],
                "InvalidArgs", "'(s)'"),
        BadCall("CheckHost without its argument", "\(reachability).CheckHost", [], [], "InvalidArgs", "'(s)'"),
        BadCall("CheckHost with an extra argument", "\(reachability).CheckHost", ["string:a.example", "int32:1"],
                [.string("a.example"), .int32(1)], "InvalidArgs", "'(s)'"),
        BadCall("an unknown method", "\(reachability).GetStatuses", [], [], "UnknownMethod", "GetStatuses"),
        BadCall("an unknown interface", "io.reachd.Reachability2.GetStatus", [], [], "UnknownInterface", "io.reachd.Reachability2"),
        BadCall("an unknown object path", path: "/io/reachd/Reachability2", "\(reachability).GetStatus", [], [],
                "UnknownObject", "/io/reachd/Reachability2"),
        BadCall("a parent path, which has no object", path: "/io/reachd", "\(reachability).GetStatus", [], [],
                "UnknownObject", "/io/reachd"),
        BadCall("Get of an unknown property", "\(properties).Get", ["string:\(reachability)", "string:Speed"],
                [.string(reachability), .string("Speed")], "UnknownProperty", "Speed"),
        BadCall("Get of a property in the wrong case", "\(properties).Get", ["string:\(reachability)", "string:status"],
                [.string(reachability), .string("status")], "UnknownProperty", "status"),
        BadCall("Get on an unknown interface", "\(properties).Get", ["string:io.reachd.Reachability2", "string:Status"],
                [.string("io.reachd.Reachability2"), .string("Status")], "UnknownInterface", "io.reachd.Reachability2"),
        BadCall("Get without the property name", "\(properties).Get", ["string:\(reachability)"], [.string(reachability)],
                "InvalidArgs", "'(ss)'"),
        BadCall("Get with an extra argument", "\(properties).Get", ["string:\(reachability)", "string:Status", "string:x"],
                [.string(reachability), .string("Status"), .string("x")], "InvalidArgs", "'(ss)'"),
        BadCall("Get with integers", "\(properties).Get", ["int32:1", "int32:2"], [.int32(1), .int32(2)], "InvalidArgs", "'(ss)'"),
        BadCall("GetAll without the interface", "\(properties).GetAll", [], [], "InvalidArgs", "'(s)'"),
        BadCall("GetAll of an unknown interface", "\(properties).GetAll", ["string:io.reachd.Reachability2"],
                [.string("io.reachd.Reachability2")], "UnknownInterface", "io.reachd.Reachability2"),
        BadCall("Set of an unknown property", "\(properties).Set", ["string:\(reachability)", "string:Speed", "variant:int32:1"],
                [.string(reachability), .string("Speed"), .variant(.int32(1))], "UnknownProperty", "Speed"),
        BadCall("Set without a value", "\(properties).Set", ["string:\(reachability)", "string:Status"],
                [.string(reachability), .string("Status")], "InvalidArgs", "'(ssv)'"),
        BadCall("Set of Status with a value of the wrong type", "\(properties).Set",
                ["string:\(reachability)", "string:Status", "variant:string:up"],
                [.string(reachability), .string("Status"), .variant(.string("up"))], "PropertyReadOnly", "Status"),
        BadCall("Introspect with an argument", "org.freedesktop.DBus.Introspectable.Introspect", ["string:x"], [.string("x")],
                "InvalidArgs", "(s)"),
        BadCall("an unknown Peer method", "org.freedesktop.DBus.Peer.Pong", [], [], "UnknownMethod", "Peer"),
        BadCall("Release on a monitor path that does not exist", path: ReachdProcess.path + "/Monitors/999",
                "io.reachd.Reachability1.Monitor.Release", [], [], "UnknownObject", "/Monitors/999"),
    ] + setOfEveryProperty

    /// Set of each property, with a value of its own type: each is read-only.
    static let setOfEveryProperty: [BadCall] = [
        ("Status", "int32:2", DBusValue.int32(2)), ("Flags", "uint32:2", .uint32(2)), ("Reachable", "boolean:true", .boolean(true)),
        ("ReachableViaWWAN", "boolean:true", .boolean(true)), ("ReachableViaWiFi", "boolean:true", .boolean(true)),
        ("StatusString", "string:Reachable", .string("Reachable")), ("InterfaceType", "string:wifi", .string("wifi")),
        ("Interface", "string:wlan0", .string("wlan0")), ("Metered", "boolean:false", .boolean(false)),
        ("Connectivity", "string:full", .string("full")), ("Backend", "string:netlink", .string("netlink")),
        ("MonitorCount", "uint32:0", .uint32(0)),
    ].map { name, text, value in
        BadCall("Set of the read-only \(name)", "\(properties).Set", ["string:\(reachability)", "string:\(name)", "variant:\(text)"],
                [.string(reachability), .string(name), .variant(value)], "PropertyReadOnly", name)
    }

    @Test("dbus-send gets the precise error for each bad call, and GetStatus answers after it", arguments: badCalls)
    func dbusSendGetsPreciseError(_ call: BadCall) async throws {
        try await withPrivateBus { session in
            try await withReachd(session: session, systemBus: absentSystemBusAddress()) { _ in
                let result = try await session.dbusSend(["--dest=\(ReachdProcess.busName)", call.path, call.member] + call.dbusSendArguments)
                #expect(result.status == 1, "\(result.transcript)")
                #expect(result.standardError.hasPrefix("Error \(call.errorName): "), "\(result.transcript)")
                #expect(result.standardError.contains(call.messageContains), "\(result.transcript)")
                let status = try await session.getStatus()
                #expect(status.standardOutput == "(2, uint32 2)\n", "the kernel's view in reachd's namespace: \(status.transcript)")
            }
        }
    }

    @Test("busctl reports the error's sentence for wrong arguments and for a read-only property")
    func busctlReportsErrorSentences() async throws {
        try await withPrivateBus { session in
            try await withReachd(session: session, systemBus: absentSystemBusAddress()) { _ in
                let wrong = try await session.busctl("call", ReachdProcess.busName, ReachdProcess.path, ReachdProcess.interface,
                                                     "CheckHost", "i", "7")
                #expect(wrong.standardError == "Call failed: Type of message, '(i)', does not match expected type '(s)'\n",
                        "\(wrong.transcript)")
                let readOnly = try await session.busctl("set-property", ReachdProcess.busName, ReachdProcess.path,
                                                        ReachdProcess.interface, "Connectivity", "s", "full")
                #expect(!readOnly.succeeded)
                #expect(readOnly.standardError.contains("read-only"), "\(readOnly.transcript)")
            }
        }
    }

    @Test("every bad call in turn on one connection: each precise, the caller stays connected, the service answers after")
    func serviceKeepsServingOneCallerThroughBadCalls() async throws {
        try await withPrivateBus { session in
            try await withReachd(session: session, systemBus: absentSystemBusAddress()) { reachd in
                try await withConnection(to: session) { client in
                    for call in Self.badCalls {
                        let result = await outcome { try await client.call(call.message()) }
                        #expect(result.dbusError?.name.rawValue == call.errorName, "\(call.label): \(result)")
                        #expect(result.dbusError?.message.contains(call.messageContains) == true, "\(call.label): \(result)")
                    }
                    let status = try await client.call(destination: BusName(ReachdProcess.busName), path: ObjectPath(ReachdProcess.path),
                                                       interface: InterfaceName(ReachdProcess.interface), member: "GetStatus")
                    #expect(status == [.int32(2), .uint32(2)])
                    #expect(await client.isConnected)
                }
                // And another client, through the command line.
                let properties = try await session.publishedProperties()
                #expect(properties.standardOutput == ReachdProcess.kernelView.busctlLines, "\(properties.transcript)")
                #expect(reachd.process.poll() == nil, "reachd is still running")
            }
        }
    }
}
