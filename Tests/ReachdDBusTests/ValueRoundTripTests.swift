import ReachdDBus
import Foundation
import ReachdTestSupport
import Testing

/// Every D-Bus type survives a trip through a real dbus-daemon, in both
/// directions of the binding (Swift → libdbus → bus → libdbus → Swift).
@Suite("Values round-trip through a real bus")
struct ValueRoundTripTests {
    static let edgeValues: [(String, DBusValue)] = [
        ("byte 0", .byte(0)), ("byte 255", .byte(255)),
        ("false", .boolean(false)), ("true", .boolean(true)),
        ("int16 min", .int16(.min)), ("int16 max", .int16(.max)), ("uint16 max", .uint16(.max)),
        ("int32 min", .int32(.min)), ("int32 max", .int32(.max)), ("uint32 max", .uint32(.max)),
        ("int64 min", .int64(.min)), ("int64 max", .int64(.max)), ("uint64 max", .uint64(.max)),
        ("double NaN", .double(.nan)), ("double +inf", .double(.infinity)), ("double -inf", .double(-.infinity)),
        ("double -0", .double(-0.0)), ("double max", .double(.greatestFiniteMagnitude)),
        ("double min subnormal", .double(.leastNonzeroMagnitude)),
        ("empty string", .string("")), ("unicode string", .string("可达性 ✓ café 🚀")),
        ("root path", .objectPath("/")), ("deep path", .objectPath("/io/reachd/Reachability1/Monitors/4096")),
        ("empty signature", .signature("")), ("signature", .signature("a{sv}(iu)")),
        ("empty string array", .array(element: "s", [])),
        ("empty dictionary", .dictionary(key: "s", value: "v", [])),
        ("empty array of structs", .array(element: "(iu)", [])),
        ("int array", .array(element: "i", [.int32(1), .int32(-2), .int32(3)])),
        ("byte array", .array(element: "y", [.byte(0), .byte(127), .byte(128), .byte(255)])),
        ("dictionary s→v", .dictionary(key: "s", value: "v", [
            DictionaryEntry(.string("Status"), .variant(.int32(2))),
            DictionaryEntry(.string("Interface"), .variant(.string("wlan0"))),
        ])),
        ("dictionary u→as", .dictionary(key: "u", value: "as", [
            DictionaryEntry(.uint32(7), .array(element: "s", [.string("a"), .string("b")])),
        ])),
        ("struct", .structure([.int32(-1), .uint32(2), .string("three")])),
        ("struct of struct", .structure([.structure([.byte(1)]), .array(element: "(yy)", [.structure([.byte(1), .byte(2)])])])),
        ("variant in variant", .variant(.variant(.variant(.string("deep"))))),
    ]

    @Test("each edge value comes back unchanged from a method call", arguments: edgeValues)
    func echoReturnsEveryEdgeValue(_ label: String, _ value: DBusValue) async throws {
        try await withPrivateBus { bus in
            let (server, _) = try await TestObject.serve(on: bus.address)
            let client = try await Connection.open(address: bus.address)
            let reply = try await client.call(destination: await server.uniqueName, path: TestObject.path,
                                              interface: TestObject.interface, member: "Echo", body: [.variant(value)])
            #expect(reply.count == 1)
            #expect(isIdentical(reply[0], .variant(value)), "\(label): sent \(value), got \(reply)")
            await client.close()
            await server.close()
        }
    }

    @Test("a signal carries every edge value at once, in order")
    func signalCarriesAllValues() async throws {
        try await withPrivateBus { bus in
            let sender = try await Connection.open(address: bus.address)
            let receiver = try await Connection.open(address: bus.address)
            let body = Self.edgeValues.map(\.1)
            // A body signature may be at most 255 characters: send in two halves.
            let halves = [Array(body.prefix(body.count / 2)), Array(body.dropFirst(body.count / 2))]
            let signals = try await receiver.signals(matching: MatchRule(interface: "org.example.Values"))
            var iterator = signals.makeAsyncIterator()
            for half in halves {
                try await sender.emitSignal(path: "/org/example/Values", interface: "org.example.Values", member: "All", body: half)
                let received = try #require(await iterator.next())
                #expect(received.body.count == half.count)
                for (sent, got) in zip(half, received.body) {
                    #expect(isIdentical(sent, got), "sent \(sent), got \(got)")
                }
            }
            await sender.close()
            await receiver.close()
        }
    }

    @Test("a 1 MiB string and a 64 KiB array survive")
    func largeValuesSurvive() async throws {
        try await withPrivateBus { bus in
            let (server, _) = try await TestObject.serve(on: bus.address)
            let client = try await Connection.open(address: bus.address)
            let large: DBusValue = .string(String(repeating: "reachd ", count: (1 << 20) / 7))
            let array: DBusValue = .array(element: "u", (0..<65536).map { .uint32(UInt32($0)) })
            for value in [large, array] {
                let reply = try await client.call(destination: await server.uniqueName, path: TestObject.path,
                                                  interface: TestObject.interface, member: "Echo", body: [.variant(value)])
                #expect(reply == [.variant(value)])
            }
            await client.close()
            await server.close()
        }
    }

    @Test("nesting to the protocol's limits works, and past them is a Swift error, not a crash")
    func deepNesting() async throws {
        try await withPrivateBus { bus in
            let (server, _) = try await TestObject.serve(on: bus.address)
            let client = try await Connection.open(address: bus.address)
            func nestedArrays(_ depth: Int) -> DBusValue {
                var value: DBusValue = .int32(7)
                var signature = "i"
                for _ in 0..<depth {
                    value = .array(element: Signature(stringLiteral: signature), [value])
                    signature = "a" + signature
                }
                return value
            }
            func nestedStructs(_ depth: Int) -> DBusValue {
                (0..<depth).reduce(DBusValue.byte(1)) { inner, _ in .structure([inner]) }
            }
            // Variant content counts one level more, so 31 and 31 are the deepest we can echo.
            for value in [nestedArrays(31), nestedStructs(31), nestedArrays(16)] {
                let reply = try await client.call(destination: await server.uniqueName, path: TestObject.path,
                                                  interface: TestObject.interface, member: "Echo", body: [.variant(value)])
                #expect(reply == [.variant(value)])
            }
            for value in [nestedArrays(33), nestedStructs(33)] {
                await #expect(throws: DBusError.self) {
                    try await client.call(destination: await server.uniqueName, path: TestObject.path,
                                          interface: TestObject.interface, member: "Echo", body: [value])
                }
            }
            await client.close()
            await server.close()
        }
    }

    @Test("a file descriptor is passed as a descriptor of the same file")
    func unixFileDescriptorRoundTrip() async throws {
        try await withPrivateBus { bus in
            let (server, _) = try await TestObject.serve(on: bus.address)
            let client = try await Connection.open(address: bus.address)
            let descriptor = UnixFileDescriptor(taking: open("/dev/null", O_RDONLY))
            let reply = try await client.call(destination: await server.uniqueName, path: TestObject.path,
                                              interface: TestObject.interface, member: "Echo", body: [.variant(.unixFD(descriptor))])
            guard case .variant(.unixFD(let returned))? = reply.first else {
                Issue.record("expected a descriptor back, got \(reply)")
                return
            }
            #expect(returned.rawValue != descriptor.rawValue)
            #expect(isIdentical(.unixFD(returned), .unixFD(descriptor)))
            await client.close()
            await server.close()
        }
    }

    @Test("values libdbus would abort on are refused with a Swift error before sending")
    func invalidOutgoingValuesAreErrors() async throws {
        try await withPrivateBus { bus in
            let client = try await Connection.open(address: bus.address)
            let invalid: [DBusValue] = [
                .string("embedded\u{0}NUL"),
                .array(element: "s", [.int32(1)]),
                .dictionary(key: "s", value: "v", [DictionaryEntry(.int32(1), .variant(.byte(1)))]),
                .dictionary(key: "v", value: "s", []),
                .structure([]),
            ]
            for value in invalid {
                await #expect(throws: DBusError.self) {
                    try await client.emitSignal(path: "/x", interface: "org.example.X", member: "Y", body: [value])
                }
            }
            #expect(await client.isConnected)
            await client.close()
        }
    }
}
