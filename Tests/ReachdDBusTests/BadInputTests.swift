import ReachdDBus
import ReachdTestSupport
import Testing

/// Whatever a client sends, the exported object answers with the precise
/// standard error (as sd-bus and GDBus services do) and keeps working.
@Suite("Bad input gets precise errors", .timeLimit(.minutes(1)))
struct BadInputTests {
    /// One kind of bad call: as dbus-send arguments and as a message of ours.
    struct BadCall: Sendable, CustomTestStringConvertible {
        let label: String
        let path: String
        let member: String
        let dbusSendArguments: [String]
        let body: [DBusValue]
        let errorName: ErrorName
        /// Words the error's sentence must contain, to help the caller.
        let messageContains: String

        var testDescription: String { label }

        /// The call as a `Message` to `destination`.
        func message(to destination: BusName) throws -> Message {
            let dot = try #require(member.lastIndex(of: "."))
            return .methodCall(destination: destination, path: try ObjectPath(path),
                               interface: try InterfaceName(String(member[..<dot])),
                               member: try MemberName(String(member[member.index(after: dot)...])), body: body)
        }
    }

    static let test = "org.example.Test"
    static let properties = "org.freedesktop.DBus.Properties"

    static let badCalls: [BadCall] = [
        BadCall(label: "Add with a string", path: "/org/example/Test", member: "\(test).Add",
                dbusSendArguments: ["string:two"], body: [.string("two")],
                errorName: "org.freedesktop.DBus.Error.InvalidArgs", messageContains: "'(ii)'"),
        BadCall(label: "Add with one integer", path: "/org/example/Test", member: "\(test).Add",
                dbusSendArguments: ["int32:2"], body: [.int32(2)],
                errorName: "org.freedesktop.DBus.Error.InvalidArgs", messageContains: "'(ii)'"),
        BadCall(label: "an unknown method", path: "/org/example/Test", member: "\(test).Multiply",
                dbusSendArguments: ["int32:2", "int32:3"], body: [.int32(2), .int32(3)],
                errorName: "org.freedesktop.DBus.Error.UnknownMethod", messageContains: "Multiply"),
        BadCall(label: "an unknown interface", path: "/org/example/Test", member: "org.example.Nope.Add",
                dbusSendArguments: ["int32:2", "int32:3"], body: [.int32(2), .int32(3)],
                errorName: "org.freedesktop.DBus.Error.UnknownInterface", messageContains: "org.example.Nope"),
        BadCall(label: "an unknown object path", path: "/org/example/Nope", member: "\(test).Add",
                dbusSendArguments: ["int32:2", "int32:3"], body: [.int32(2), .int32(3)],
                errorName: "org.freedesktop.DBus.Error.UnknownObject", messageContains: "/org/example/Nope"),
        BadCall(label: "Get of an unknown property", path: "/org/example/Test", member: "\(properties).Get",
                dbusSendArguments: ["string:\(test)", "string:Missing"], body: [.string(test), .string("Missing")],
                errorName: "org.freedesktop.DBus.Error.UnknownProperty", messageContains: "Missing"),
        BadCall(label: "Get on an unknown interface", path: "/org/example/Test", member: "\(properties).Get",
                dbusSendArguments: ["string:org.example.Nope", "string:Answer"], body: [.string("org.example.Nope"), .string("Answer")],
                errorName: "org.freedesktop.DBus.Error.UnknownInterface", messageContains: "org.example.Nope"),
        BadCall(label: "Set of the read-only Answer", path: "/org/example/Test", member: "\(properties).Set",
                dbusSendArguments: ["string:\(test)", "string:Answer", "variant:int32:7"],
                body: [.string(test), .string("Answer"), .variant(.int32(7))],
                errorName: "org.freedesktop.DBus.Error.PropertyReadOnly", messageContains: "Answer"),
        BadCall(label: "Set of Counter with a string", path: "/org/example/Test", member: "\(properties).Set",
                dbusSendArguments: ["string:\(test)", "string:Counter", "variant:string:seven"],
                body: [.string(test), .string("Counter"), .variant(.string("seven"))],
                errorName: "org.freedesktop.DBus.Error.InvalidArgs", messageContains: "'u'"),
        BadCall(label: "Fail, which fails on purpose", path: "/org/example/Test", member: "\(test).Fail",
                dbusSendArguments: [], body: [],
                errorName: "org.example.Error.Deliberate", messageContains: "failing as asked"),
    ]

    @Test("dbus-send gets the precise error for each bad call", arguments: badCalls)
    func dbusSendGetsPreciseErrors(_ call: BadCall) async throws {
        try await withPrivateBus { bus in
            try await withTestObject(on: bus) { server, _ in
                let destination = try await server.requiredUniqueName.rawValue
                var arguments = ["--dest=\(destination)", call.path, call.member]
                arguments += call.dbusSendArguments
                let result = try await runTool("dbus-send", ["--bus=\(bus.address)", "--print-reply"] + arguments)
                #expect(result.status == 1, "\(result.transcript)")
                #expect(result.standardError.hasPrefix("Error \(call.errorName): "), "\(result.transcript)")
                #expect(result.standardError.contains(call.messageContains), "\(result.transcript)")
                let add = try await bus.dbusSend("--dest=\(destination)", "/org/example/Test", "org.example.Test.Add", "int32:2", "int32:3")
                #expect(add.standardOutput.hasSuffix("int32 5\n"), "\(add.transcript)")
            }
        }
    }

    @Test("busctl reports the error's sentence for a call with the wrong signature")
    func busctlReportsWrongSignature() async throws {
        try await withPrivateBus { bus in
            try await withTestObject(on: bus) { server, _ in
                let destination = try await server.requiredUniqueName.rawValue
                let result = try await bus.busctl("call", destination, "/org/example/Test", "org.example.Test", "Add", "s", "two")
                #expect(!result.succeeded)
                #expect(result.standardError == "Call failed: Type of message, '(s)', does not match expected type '(ii)'\n",
                        "\(result.transcript)")
                let readOnly = try await bus.busctl("set-property", destination, "/org/example/Test", "org.example.Test", "Answer", "i", "7")
                #expect(!readOnly.succeeded)
                #expect(readOnly.standardError.contains("read-only"), "\(readOnly.transcript)")
            }
        }
    }

    @Test("after every kind of bad call on one connection, the object still answers and the caller stays connected")
    func objectKeepsAnsweringAfterBadCalls() async throws {
        try await withPrivateBus { bus in
            try await withTestObject(on: bus) { server, _ in
                try await withConnection(to: bus) { client in
                    let destination = try await server.requiredUniqueName
                    for call in Self.badCalls {
                        let result = await outcome { try await client.call(call.message(to: destination)) }
                        #expect(result.dbusError?.name == call.errorName, "\(call.label): \(result)")
                        #expect(result.dbusError?.message.contains(call.messageContains) == true, "\(call.label): \(result)")
                    }
                    let sum = try await client.call(destination: destination, path: TestObject.path,
                                                    interface: TestObject.interface, member: "Add", body: [.int32(2), .int32(3)])
                    #expect(sum == [.int32(5)])
                    #expect(await client.isConnected)
                    #expect(await server.isConnected)
                }
            }
        }
    }

    @Test("a call without an interface field reaches the method of that name")
    func callWithoutInterfaceReachesMethod() async throws {
        try await withPrivateBus { bus in
            try await withTestObject(on: bus) { server, _ in
                try await withConnection(to: bus) { client in
                    let destination = try await server.requiredUniqueName
                    let sum = try await client.call(destination: destination, path: TestObject.path, interface: nil,
                                                    member: "Add", body: [.int32(2), .int32(3)])
                    #expect(sum == [.int32(5)])
                    let answer = try await client.call(destination: destination, path: TestObject.path, interface: nil,
                                                       member: "Get", body: [.string("org.example.Test"), .string("Answer")])
                    #expect(answer == [.variant(.int32(42))])
                    let unknown = await outcome {
                        try await client.call(destination: destination, path: TestObject.path, interface: nil, member: "Multiply")
                    }
                    #expect(unknown.dbusError?.name == "org.freedesktop.DBus.Error.UnknownMethod", "\(unknown)")
                }
            }
        }
    }

    @Test("Introspect on a parent path lists the child node and nothing else")
    func parentPathIntrospectionListsChild() async throws {
        try await withPrivateBus { bus in
            try await withTestObject(on: bus) { server, _ in
                try await withConnection(to: bus) { client in
                    let destination = try await server.requiredUniqueName
                    let reply = try await client.call(destination: destination, path: "/org/example",
                                                      interface: .introspectable, member: "Introspect")
                    let xml = try #require(reply.first?.stringValue)
                    #expect(xml.contains("<node name=\"Test\"/>"), "\(xml)")
                    #expect(!xml.contains("<interface"), "\(xml)")
                    // A parent node has no methods of its own to call.
                    let call = await outcome {
                        try await client.call(destination: destination, path: "/org/example", interface: TestObject.interface,
                                              member: "Add", body: [.int32(2), .int32(3)])
                    }
                    #expect(call.dbusError?.name == "org.freedesktop.DBus.Error.UnknownObject", "\(call)")
                }
            }
        }
    }

    @Test("a path that is no longer exported answers UnknownObject")
    func unexportedPathIsUnknown() async throws {
        try await withPrivateBus { bus in
            try await withTestObject(on: bus) { server, _ in
                try await withConnection(to: bus) { client in
                    let destination = try await server.requiredUniqueName
                    #expect(await server.unexport(TestObject.path))
                    #expect(await !server.unexport(TestObject.path))
                    let call = await outcome {
                        try await client.call(destination: destination, path: TestObject.path, interface: TestObject.interface,
                                              member: "Add", body: [.int32(2), .int32(3)])
                    }
                    #expect(call.dbusError?.name == "org.freedesktop.DBus.Error.UnknownObject", "\(call)")
                }
            }
        }
    }
}
