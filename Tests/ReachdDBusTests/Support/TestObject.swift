import ReachdDBus
import Synchronization

/// The object the tests export: a bit of every kind of declaration.
///
/// `org.example.Test` at `/org/example/Test`: `Echo(v) → v`, `Add(i, i) → i`,
/// `Concat(s, s) → s`, `Fail()` (answers `org.example.Error.Deliberate`),
/// `Slow(u milliseconds) → u` (deferred), `Emit(s)` (emits `Said(s)`);
/// read-only `Name` (s) and `Answer` (i), writable `Counter` (u).
final class TestObject: Sendable {
    static let path: ObjectPath = "/org/example/Test"
    static let interface: InterfaceName = "org.example.Test"

    let counter = Mutex<UInt32>(0)

    var declaration: InterfaceDeclaration {
        InterfaceDeclaration(
            name: Self.interface,
            methods: [
                MethodDeclaration(name: "Echo", inputs: ["value": "v"], outputs: ["value": "v"]) { _, call in
                    call.body
                },
                MethodDeclaration(name: "Add", inputs: ["a": "i", "b": "i"], outputs: ["sum": "i"]) { _, call in
                    guard case .int32(let a) = call.body[0], case .int32(let b) = call.body[1] else { return [] }
                    return [.int32(a &+ b)]
                },
                MethodDeclaration(name: "Concat", inputs: ["a": "s", "b": "s"], outputs: ["joined": "s"]) { _, call in
                    [.string((call.body[0].stringValue ?? "") + (call.body[1].stringValue ?? ""))]
                },
                MethodDeclaration(name: "Fail") { _, _ in
                    throw DBusError(name: "org.example.Error.Deliberate", message: "failing as asked")
                },
                MethodDeclaration(name: "Slow", inputs: ["milliseconds": "u"], outputs: ["milliseconds": "u"],
                                  handler: .deferred { call in
                    guard case .uint32(let milliseconds) = call.body[0] else { return [] }
                    try await Task.sleep(for: .milliseconds(Int(milliseconds)))
                    return [.uint32(milliseconds)]
                }),
                MethodDeclaration(name: "Emit", inputs: ["text": "s"]) { connection, call in
                    try connection.emitSignal(path: Self.path, interface: Self.interface, member: "Said", body: call.body)
                    return []
                },
            ],
            properties: [
                PropertyDeclaration(name: "Name", signature: "s", changeSignal: .constant, read: { .string("test object") }),
                PropertyDeclaration(name: "Answer", signature: "i", read: { .int32(42) }),
                PropertyDeclaration(name: "Counter", signature: "u", read: { [self] in .uint32(self.counter.withLock { $0 }) },
                                    write: { [self] value in
                    guard case .uint32(let number) = value else { throw DBusError.invalidArgs("Counter is a u") }
                    self.counter.withLock { $0 = number }
                }),
            ],
            signals: [SignalDeclaration(name: "Said", arguments: ["text": "s"])])
    }

    /// Connects to `address` and exports the object there.
    static func serve(on address: String) async throws -> (Connection, TestObject) {
        let connection = try await Connection.open(address: address)
        let object = TestObject()
        try await connection.export([object.declaration], at: path)
        return (connection, object)
    }
}
