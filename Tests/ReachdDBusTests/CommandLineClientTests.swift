import ReachdDBus
import Foundation
import ReachdTestSupport
import Testing

/// The object the binding exports is usable from the standard command-line
/// clients (systemd's busctl, GLib's gdbus, libdbus's dbus-send) exactly as a
/// user would type them, and they print what the declaration says.
@Suite("Command-line clients see the exported object", .timeLimit(.minutes(1)))
struct CommandLineClientTests {
    static let path = TestObject.path.rawValue
    static let interface = TestObject.interface.rawValue

    @Test("busctl call gets typed answers from the object's methods")
    func busctlCallsMethods() async throws {
        try await withPrivateBus { bus in
            try await withTestObject(on: bus) { server, _ in
                let destination = try await server.requiredUniqueName.rawValue
                let add = try await bus.busctl("call", destination, Self.path, Self.interface, "Add", "ii", "2", "3")
                #expect(add.standardOutput == "i 5\n", "\(add.transcript)")
                let concat = try await bus.busctl("call", destination, Self.path, Self.interface, "Concat", "ss", "a b", "c")
                #expect(concat.standardOutput == "s \"a bc\"\n", "\(concat.transcript)")
                let echo = try await bus.busctl("call", destination, Self.path, Self.interface, "Echo", "v", "s", "hi")
                #expect(echo.standardOutput == "v s \"hi\"\n", "\(echo.transcript)")
                // A deferred method answers once its task finishes.
                let slow = try await bus.busctl("call", destination, Self.path, Self.interface, "Slow", "u", "50")
                #expect(slow.standardOutput == "u 50\n", "\(slow.transcript)")
            }
        }
    }

    @Test("gdbus call gets the reply tuple")
    func gdbusCallsMethods() async throws {
        try await withPrivateBus { bus in
            try await withTestObject(on: bus) { server, _ in
                let destination = try await server.requiredUniqueName.rawValue
                let add = try await bus.gdbus("call", "--dest", destination, "--object-path", Self.path,
                                              "--method", Self.interface + ".Add", "2", "3")
                #expect(add.standardOutput == "(5,)\n", "\(add.transcript)")
                let concat = try await bus.gdbus("call", "--dest", destination, "--object-path", Self.path,
                                                 "--method", Self.interface + ".Concat", "'re'", "'achd'")
                #expect(concat.standardOutput == "('reachd',)\n", "\(concat.transcript)")
                let echo = try await bus.gdbus("call", "--dest", destination, "--object-path", Self.path,
                                               "--method", Self.interface + ".Echo", "<(1, 'two')>")
                #expect(echo.standardOutput == "(<(1, 'two')>,)\n", "\(echo.transcript)")
            }
        }
    }

    @Test("dbus-send --print-reply prints the reply")
    func dbusSendCallsMethods() async throws {
        try await withPrivateBus { bus in
            try await withTestObject(on: bus) { server, _ in
                let destination = try await server.requiredUniqueName.rawValue
                let add = try await bus.dbusSend("--dest=\(destination)", Self.path, Self.interface + ".Add", "int32:2", "int32:3")
                #expect(add.succeeded, "\(add.transcript)")
                #expect(add.standardOutput.hasPrefix("method return "), "\(add.transcript)")
                #expect(add.standardOutput.hasSuffix("\n   int32 5\n"), "\(add.transcript)")
                let concat = try await bus.dbusSend("--dest=\(destination)", Self.path, Self.interface + ".Concat",
                                                    "string:a", "string:b")
                #expect(concat.standardOutput.hasSuffix("\n   string \"ab\"\n"), "\(concat.transcript)")
            }
        }
    }

    @Test("busctl get-property and gdbus Properties.Get/GetAll read the declared properties")
    func propertiesAreReadable() async throws {
        try await withPrivateBus { bus in
            try await withTestObject(on: bus) { server, _ in
                let destination = try await server.requiredUniqueName.rawValue
                let busctl = try await bus.busctl("get-property", destination, Self.path, Self.interface, "Name", "Answer", "Counter")
                #expect(busctl.standardOutput == "s \"test object\"\ni 42\nu 0\n", "\(busctl.transcript)")
                let get = try await bus.gdbus("call", "--dest", destination, "--object-path", Self.path,
                                              "--method", "org.freedesktop.DBus.Properties.Get", Self.interface, "Name")
                #expect(get.standardOutput == "(<'test object'>,)\n", "\(get.transcript)")
                let getAll = try await bus.gdbus("call", "--dest", destination, "--object-path", Self.path,
                                                 "--method", "org.freedesktop.DBus.Properties.GetAll", Self.interface)
                #expect(getAll.standardOutput == "({'Name': <'test object'>, 'Answer': <42>, 'Counter': <uint32 0>},)\n",
                        "\(getAll.transcript)")
            }
        }
    }

    @Test("busctl set-property writes Counter, and the new value reads back")
    func busctlSetsWritableProperty() async throws {
        try await withPrivateBus { bus in
            try await withTestObject(on: bus) { server, object in
                let destination = try await server.requiredUniqueName.rawValue
                let set = try await bus.busctl("set-property", destination, Self.path, Self.interface, "Counter", "u", "7")
                #expect(set.succeeded, "\(set.transcript)")
                #expect(object.counter.withLock { $0 } == 7)
                let get = try await bus.busctl("get-property", destination, Self.path, Self.interface, "Counter")
                #expect(get.standardOutput == "u 7\n", "\(get.transcript)")
            }
        }
    }

    @Test("busctl introspect lists the methods, properties with their flags, and the signal")
    func busctlIntrospectShowsDeclaration() async throws {
        try await withPrivateBus { bus in
            try await withTestObject(on: bus) { server, _ in
                let destination = try await server.requiredUniqueName.rawValue
                let result = try await bus.busctl("introspect", destination, Self.path)
                #expect(result.succeeded, "\(result.transcript)")
                // busctl lays the members out in columns: compare them word by word.
                let rows = Set(result.standardOutput.split(separator: "\n").map { collapsingWhitespace(String($0)) })
                let expected = [
                    "org.example.Test interface - - -",
                    ".Add method ii i -",
                    ".Concat method ss s -",
                    ".Echo method v v -",
                    ".Emit method s - -",
                    ".Fail method - - -",
                    ".Slow method u u -",
                    ".Answer property i 42 emits-change",
                    ".Counter property u 0 emits-change writable",
                    ".Name property s \"test object\" const",
                    ".Said signal s - -",
                    "org.freedesktop.DBus.Properties interface - - -",
                    ".GetMachineId method - s -",
                ]
                for row in expected {
                    #expect(rows.contains(row), "missing '\(row)' in\n\(result.transcript)")
                }
            }
        }
    }

    @Test("gdbus introspect shows the interface with read-only and writable properties and the signal")
    func gdbusIntrospectShowsDeclaration() async throws {
        try await withPrivateBus { bus in
            try await withTestObject(on: bus) { server, _ in
                let destination = try await server.requiredUniqueName.rawValue
                let result = try await bus.gdbus("introspect", "--dest", destination, "--object-path", Self.path)
                #expect(result.succeeded, "\(result.transcript)")
                let text = collapsingWhitespace(result.standardOutput)
                let expected = [
                    "interface org.example.Test {",
                    "Add(in i a, in i b, out i sum);",
                    "Slow(in u milliseconds, out u milliseconds);",
                    "Fail();",
                    "signals: Said(s text);",
                    "@org.freedesktop.DBus.Property.EmitsChangedSignal(\"const\") readonly s Name = 'test object';",
                    "readonly i Answer = 42;",
                    "readwrite u Counter = 0;",
                ]
                for fragment in expected {
                    #expect(text.contains(fragment), "missing '\(fragment)' in\n\(result.transcript)")
                }
            }
        }
    }

    @Test("busctl tree and gdbus introspect --recurse walk from / down to the object path")
    func busctlTreeShowsObjectPath() async throws {
        try await withPrivateBus { bus in
            try await withTestObject(on: bus) { server, _ in
                let destination = try await server.requiredUniqueName.rawValue
                let result = try await bus.busctl("tree", "--list", destination)
                #expect(result.standardOutput == "/\n/org\n/org/example\n/org/example/Test\n", "\(result.transcript)")
                let recursive = try await bus.gdbus("introspect", "--recurse", "--dest", destination, "--object-path", "/")
                let text = collapsingWhitespace(recursive.standardOutput)
                #expect(text.hasPrefix("node / { node /org { node /org/example { node /org/example/Test {"), "\(recursive.transcript)")
                #expect(text.contains("interface org.example.Test {"), "\(recursive.transcript)")
            }
        }
    }

    @Test("gdbus monitor sees a signal the object emits")
    func gdbusMonitorSeesEmittedSignal() async throws {
        try await withPrivateBus { bus in
            try await withTestObject(on: bus) { server, _ in
                let destination = try await server.requiredUniqueName.rawValue
                let monitor = try BackgroundTool("gdbus", ["monitor", "--address", bus.address, "--dest", destination])
                defer { monitor.stop() }
                try await monitor.waitForOutput(containing: "The name \(destination) is owned by \(destination)")
                // gdbus adds its match rule only after printing that line, with
                // no further sign: emit probes until one shows up.
                try await eventually("gdbus monitor shows a probe signal:\n\(monitor.output)") {
                    let probe = try await bus.busctl("call", destination, Self.path, Self.interface, "Emit", "s", "probe")
                    guard probe.succeeded else { throw TestFailure(probe.transcript) }
                    try await Task.sleep(for: .milliseconds(50))
                    return monitor.output.contains("Said ('probe',)")
                }
                let emit = try await bus.busctl("call", destination, Self.path, Self.interface, "Emit", "s", "hello from reachd")
                #expect(emit.succeeded, "\(emit.transcript)")
                try await monitor.waitForOutput(containing: "/org/example/Test: org.example.Test.Said ('hello from reachd',)")
            }
        }
    }

    @Test("Peer.Ping and Peer.GetMachineId answer through busctl")
    func peerInterfaceAnswers() async throws {
        try await withPrivateBus { bus in
            try await withTestObject(on: bus) { server, _ in
                let destination = try await server.requiredUniqueName.rawValue
                let ping = try await bus.busctl("call", destination, Self.path, "org.freedesktop.DBus.Peer", "Ping")
                #expect(ping.succeeded && ping.standardOutput.isEmpty, "\(ping.transcript)")
                let machineID = try await bus.busctl("call", destination, Self.path, "org.freedesktop.DBus.Peer", "GetMachineId")
                let expected = try Self.machineID()
                #expect(machineID.standardOutput == "s \"\(expected)\"\n", "\(machineID.transcript)")
            }
        }
    }

    /// The machine ID as libdbus reads it: its own file first, then systemd's.
    static func machineID() throws -> String {
        for file in ["/var/lib/dbus/machine-id", "/etc/machine-id"] {
            if let text = try? String(contentsOfFile: file, encoding: .utf8) {
                return text.trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }
        throw TestFailure("this machine has no machine ID file")
    }
}
