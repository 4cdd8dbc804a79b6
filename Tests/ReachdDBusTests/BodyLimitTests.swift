import ReachdDBus
import ReachdTestSupport
import Testing

/// libdbus does not check a body signature's limits (255 bytes, 32 nested arrays) as it builds a
/// message: past them it aborts, or sends what the bus answers by disconnecting the sender. So a
/// body past them must be refused as an error before libdbus sees it, and one within them must go
/// out whole, whichever way the writer checks it (by length for shallow bodies, else by parsing).
@Suite("A message body at its signature's limits")
struct BodyLimitTests {
    /// A body, named in the test's report by what it holds rather than value by value.
    struct Body: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let values: [DBusValue]
        init(_ name: String, _ values: [DBusValue]) { testDescription = name; self.values = values }
    }

    static let property = DBusValue.dictionary(key: "s", value: "v", [DictionaryEntry(.string("Status"), .variant(.int32(2)))])

    static let bodiesOfLength255: [Body] = [
        Body("255 basic values", Array(repeating: .int32(7), count: 255)),
        Body("51 a{sv}", Array(repeating: property, count: 51)),
        Body("127 as and an int32", Array(repeating: .array(element: "s", [.string("x")]), count: 127) + [.int32(1)]),
        Body("one aas among 126 as", [.array(element: "as", [.array(element: "s", [.string("x")])])]
            + Array(repeating: .array(element: "s", []), count: 126)),
    ]

    static let bodiesOfLength256: [Body] = [
        Body("256 basic values", Array(repeating: .int32(7), count: 256)),
        Body("51 a{sv} and an int32", Array(repeating: property, count: 51) + [.int32(1)]),
        Body("128 as", Array(repeating: .array(element: "s", []), count: 128)),
        Body("one aas among 126 as and an int32", [.array(element: "as", [])]
            + Array(repeating: .array(element: "s", []), count: 126) + [.int32(1)]),
    ]

    @Test("a body whose signature is 255 bytes arrives whole", arguments: bodiesOfLength255)
    func longestBodyArrives(_ body: Body) async throws {
        try await withPrivateBus { bus in
            let sender = try await Connection.open(address: bus.address)
            let receiver = try await Connection.open(address: bus.address)
            let signals = try await receiver.signals(matching: MatchRule(interface: "org.example.Limits"))
            var iterator = signals.makeAsyncIterator()
            try await sender.emitSignal(path: "/org/example/Limits", interface: "org.example.Limits", member: "Long", body: body.values)
            let received = try #require(await iterator.next())
            #expect(received.body.count == body.values.count)
            #expect(received.body.map(\.signature.rawValue).joined().utf8.count == 255)
            await sender.close()
            await receiver.close()
        }
    }

    @Test("a body whose signature is 256 bytes is refused, and the connection goes on", arguments: bodiesOfLength256)
    func tooLongBodyIsRefused(_ body: Body) async throws {
        try await withPrivateBus { bus in
            let sender = try await Connection.open(address: bus.address)
            await #expect(throws: DBusError.invalidSignature("the message body's signature is too long or too deeply nested")) {
                try await sender.emitSignal(path: "/org/example/Limits", interface: "org.example.Limits", member: "TooLong", body: body.values)
            }
            try await sender.emitSignal(path: "/org/example/Limits", interface: "org.example.Limits", member: "After", body: [.int32(1)])
            await sender.close()
        }
    }

    @Test("33 nested arrays are refused; 32 arrive")
    func nestingLimit() async throws {
        func nested(_ depth: Int) -> DBusValue {
            var value = DBusValue.array(element: "i", [])
            for _ in 1..<depth { value = .array(element: value.signature, [value]) }
            return value
        }
        try await withPrivateBus { bus in
            let sender = try await Connection.open(address: bus.address)
            let receiver = try await Connection.open(address: bus.address)
            let signals = try await receiver.signals(matching: MatchRule(interface: "org.example.Limits"))
            var iterator = signals.makeAsyncIterator()
            await #expect(throws: DBusError.self) {
                try await sender.emitSignal(path: "/org/example/Limits", interface: "org.example.Limits", member: "Deep", body: [nested(33)])
            }
            try await sender.emitSignal(path: "/org/example/Limits", interface: "org.example.Limits", member: "Deep", body: [nested(32)])
            let received = try #require(await iterator.next())
            #expect(received.body.first?.signature.rawValue == String(repeating: "a", count: 32) + "i")
            await sender.close()
            await receiver.close()
        }
    }
}
