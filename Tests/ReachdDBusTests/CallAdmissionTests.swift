import ReachdDBus
import Synchronization
import ReachdTestSupport
import Testing

/// A connection's admission hook (`admitCalls(with:)`) is asked before every call reaches an
/// exported object, `Properties` included, and its refusal is the caller's answer; introspection
/// and `Peer` never ask it; a decision made later holds the call until it is made.
@Suite("Call admission", .timeLimit(.minutes(1)))
struct CallAdmissionTests {
    static let refusal = DBusError(name: "org.example.Error.NotAllowed", message: "not you")

    @Test("a refused caller gets the hook's error from every method and property read; Introspect and Ping stay open")
    func refusalCoversMethodsAndProperties() async throws {
        try await withPrivateBus { bus in
            try await withTestObject(on: bus) { server, _ in
                let destination = try await server.requiredUniqueName.rawValue
                let asked = Asked()
                await server.admitCalls { _, _ in
                    asked.count.withLock { $0 += 1 }
                    return .refuse(Self.refusal)
                }
                let path = TestObject.path.rawValue, interface = TestObject.interface.rawValue
                for call in [["call", destination, path, interface, "Add", "ii", "2", "3"],
                             ["get-property", destination, path, interface, "Answer"],
                             ["call", destination, path, "org.freedesktop.DBus.Properties", "GetAll", "s", interface],
                             ["call", destination, "/no/such/object", interface, "Add", "ii", "1", "1"]] {
                    let result = try await runTool("busctl", ["--address=\(bus.address)"] + call)
                    #expect(!result.succeeded && result.standardError.contains("not you"), "\(call): \(result.transcript)")
                }
                #expect(asked.count.withLock { $0 } == 4)
                // (busctl introspect would read the properties too, which the hook refuses.)
                let introspect = try await bus.dbusSend("--dest=\(destination)", path, "org.freedesktop.DBus.Introspectable.Introspect")
                #expect(introspect.succeeded && introspect.standardOutput.contains("Add"), "\(introspect.transcript)")
                let ping = try await bus.busctl("call", destination, path, "org.freedesktop.DBus.Peer", "Ping")
                #expect(ping.succeeded, "\(ping.transcript)")
                #expect(asked.count.withLock { $0 } == 4)
            }
        }
    }

    @Test("a decision made later answers the waiting call: admitted calls are dispatched, refused ones get the error")
    func laterDecisionsHoldTheCall() async throws {
        try await withPrivateBus { bus in
            try await withTestObject(on: bus) { server, _ in
                let destination = try await server.requiredUniqueName.rawValue
                await server.admitCalls { _, call in
                    let admit = call.member?.rawValue == "Add"
                    return .decideLater {
                        try? await Task.sleep(for: .milliseconds(50))
                        return admit ? nil : Self.refusal
                    }
                }
                let path = TestObject.path.rawValue, interface = TestObject.interface.rawValue
                let add = try await bus.busctl("call", destination, path, interface, "Add", "ii", "2", "3")
                #expect(add.standardOutput == "i 5\n", "\(add.transcript)")
                let concat = try await bus.busctl("call", destination, path, interface, "Concat", "ss", "a", "b")
                #expect(!concat.succeeded && concat.standardError.contains("not you"), "\(concat.transcript)")
                await server.admitCalls(with: nil)
                let admitted = try await bus.busctl("call", destination, path, interface, "Concat", "ss", "a", "b")
                #expect(admitted.standardOutput == "s \"ab\"\n", "\(admitted.transcript)")
            }
        }
    }
}

/// How often the hook was asked, from the connection's thread and the test's.
private final class Asked: Sendable {
    let count = Mutex(0)
}
