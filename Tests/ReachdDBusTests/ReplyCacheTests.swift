import ReachdDBus
import Synchronization
import ReachdTestSupport
import Testing

/// A method or property declared `cachedPer:` a `ReplyGeneration` has its reply built once per
/// generation and sent again as a copy: each copy answers its own call (its reply serial) and
/// goes to its own caller (its destination), a new generation or a `Set` is seen by the next
/// call, an error is never kept, and the call passes the admission hook first every time.
@Suite("Replies cached per generation", .timeLimit(.minutes(1)))
struct ReplyCacheTests {
    @Test("one build answers many callers at once, each reply answering its own call and addressed to its caller")
    func cachedReplyIsCopiedForEachCall() async throws {
        let callsPerClient = 40
        try await withCachedObject { bus, server, object in
            let destination = try await server.requiredUniqueName
            try await withConnection(to: bus) { first in
                try await withConnection(to: bus) { second in
                    let clients = [first, second]
                    let replies = try await withThrowingTaskGroup(of: (Int, Message).self) { group in
                        for (index, client) in clients.enumerated() {
                            for _ in 0..<callsPerClient {
                                group.addTask { (index, try await client.call(object.getValue(to: destination), timeout: .seconds(20))) }
                            }
                        }
                        var replies: [(Int, Message)] = []
                        for try await reply in group { replies.append(reply) }
                        return replies
                    }
                    #expect(replies.count == 2 * callsPerClient)
                    #expect(replies.allSatisfy { $0.1.body == [.uint32(1)] }, "\(replies.map(\.1.body))")
                    for (index, client) in clients.enumerated() {
                        let own = replies.filter { $0.0 == index }.map(\.1)
                        let name = try await client.requiredUniqueName
                        // libdbus hands a reply to the pending call whose serial it names, so every
                        // call that returned got a reply naming its serial; distinct serials show
                        // no copy kept another call's.
                        #expect(Set(own.map(\.replySerial)).count == callsPerClient, "reply serials \(own.map(\.replySerial))")
                        #expect(own.allSatisfy { $0.destination == name }, "destinations \(Set(own.map(\.destination)))")
                    }
                    #expect(object.builds("GetValue") == 1, "built once for \(2 * callsPerClient) calls")

                    // Another client library (sd-bus checks a reply's header strictly) takes the copies too.
                    let busctl = try await bus.busctl("call", destination.rawValue, CachedObject.path.rawValue,
                                                      CachedObject.interface.rawValue, "GetValue")
                    #expect(busctl.standardOutput == "u 1\n", "\(busctl.transcript)")

                    object.value.withLock { $0 = 2 }
                    object.generation.advance()
                    let after = try await first.call(object.getValue(to: destination))
                    #expect(after.body == [.uint32(2)], "the next call after the generation advanced sees the new value")
                    #expect(object.builds("GetValue") == 2)
                }
            }
        }
    }

    @Test("Get and GetAll of properties cached per one generation are built once; a property read afresh keeps GetAll fresh; Set is seen at once")
    func propertyRepliesAreCachedPerGeneration() async throws {
        try await withCachedObject { bus, server, object in
            let destination = try await server.requiredUniqueName
            try await withConnection(to: bus) { client in
                func get(_ interface: InterfaceName, _ name: String) async throws -> DBusValue? {
                    try await client.call(destination: destination, path: CachedObject.path, interface: .properties,
                                          member: "Get", body: [.string(interface.rawValue), .string(name)]).first
                }
                func getAll(_ interface: String) async throws -> DBusValue? {
                    try await client.call(destination: destination, path: CachedObject.path, interface: .properties,
                                          member: "GetAll", body: [.string(interface)]).first
                }
                for _ in 0..<3 { #expect(try await get(CachedObject.interface, "Value") == .variant(.uint32(1))) }
                #expect(object.builds("Value") == 1)
                let all = DBusValue.dictionary(key: "s", value: "v", [
                    DictionaryEntry(.string("Value"), .variant(.uint32(1))),
                    DictionaryEntry(.string("Label"), .variant(.string("cached object"))),
                    DictionaryEntry(.string("Writable"), .variant(.uint32(0))),
                ])
                for _ in 0..<3 { #expect(try await getAll(CachedObject.interface.rawValue) == all) }
                #expect(object.builds("Value") == 2, "GetAll read Value once for its three calls")

                // "" reads both interfaces, and Live is read afresh on every call: so is all of GetAll("").
                for _ in 0..<3 { _ = try await getAll("") }
                #expect(object.builds("Live") == 3)
                #expect(object.builds("Value") == 5)

                let set = try await client.call(destination: destination, path: CachedObject.path, interface: .properties,
                                                member: "Set", body: [.string(CachedObject.interface.rawValue), .string("Writable"),
                                                                      .variant(.uint32(7))])
                #expect(set.isEmpty)
                #expect(try await get(CachedObject.interface, "Writable") == .variant(.uint32(7)), "a Set advances the generation")
                #expect(try await getAll(CachedObject.interface.rawValue) == DBusValue.dictionary(key: "s", value: "v", [
                    DictionaryEntry(.string("Value"), .variant(.uint32(1))),
                    DictionaryEntry(.string("Label"), .variant(.string("cached object"))),
                    DictionaryEntry(.string("Writable"), .variant(.uint32(7))),
                ]))
                // An unknown property is an error every time, never a reply kept.
                for _ in 0..<2 {
                    let unknown = await outcome { try await get(CachedObject.interface, "NoSuchProperty") }
                    #expect(unknown.dbusError?.name.rawValue == "org.freedesktop.DBus.Error.UnknownProperty", "\(unknown)")
                }
            }
        }
    }

    @Test("an error is never cached: the handler runs again on the next call, whose value is then kept")
    func errorsAreNotCached() async throws {
        try await withCachedObject { bus, server, object in
            let destination = try await server.requiredUniqueName
            try await withConnection(to: bus) { client in
                object.failing.withLock { $0 = true }
                for _ in 0..<2 {
                    let failed = await outcome { try await client.call(object.getValue(to: destination)) }
                    #expect(failed.dbusError?.name.rawValue == "org.example.Error.Deliberate", "\(failed)")
                }
                #expect(object.builds("GetValue") == 2)
                object.failing.withLock { $0 = false }
                for _ in 0..<2 {
                    let reply = try await client.call(object.getValue(to: destination))
                    #expect(reply.body == [.uint32(1)])
                }
                #expect(object.builds("GetValue") == 3)
            }
        }
    }

    @Test("a cached reply is sent only to a caller the admission hook admits")
    func admissionComesBeforeTheCache() async throws {
        try await withCachedObject { bus, server, object in
            let destination = try await server.requiredUniqueName
            try await withConnection(to: bus) { client in
                let admitted = try await client.call(object.getValue(to: destination))
                #expect(admitted.body == [.uint32(1)])
                await server.admitCalls { _, _ in .refuse(DBusError(name: "org.example.Error.NotAllowed", message: "not you")) }
                let refused = await outcome { try await client.call(object.getValue(to: destination)) }
                #expect(refused.dbusError?.name.rawValue == "org.example.Error.NotAllowed", "\(refused)")
            }
        }
    }

    @Test("an object exported again at the same path answers for itself, not with its predecessor's replies")
    func unexportingForgetsTheReplies() async throws {
        try await withCachedObject { bus, server, object in
            let destination = try await server.requiredUniqueName
            try await withConnection(to: bus) { client in
                let first = try await client.call(object.getValue(to: destination))
                #expect(first.body == [.uint32(1)])
                await server.unexport(CachedObject.path)
                let successor = CachedObject()
                successor.value.withLock { $0 = 5 }
                try await server.export(successor.declarations, at: CachedObject.path)
                let second = try await client.call(object.getValue(to: destination))
                #expect(second.body == [.uint32(5)])
            }
        }
    }
}

/// `org.example.Cached` at `/org/example/Cached`: `GetValue() → u` and the properties `Value` (u),
/// `Label` (s, constant) and writable `Writable` (u), all cached per `generation`; and
/// `org.example.Cached.Extra` with `Live` (u), read afresh on every call. Counts how often each
/// answer is built.
private final class CachedObject: Sendable {
    static let path: ObjectPath = "/org/example/Cached"
    static let interface: InterfaceName = "org.example.Cached"

    let generation = ReplyGeneration()
    let value = Mutex<UInt32>(1)
    let writable = Mutex<UInt32>(0)
    let failing = Mutex(false)
    private let counts = Mutex<[String: Int]>([:])

    func builds(_ name: String) -> Int { counts.withLock { $0[name, default: 0] } }

    private func built(_ name: String) { counts.withLock { $0[name, default: 0] += 1 } }

    func getValue(to destination: BusName) -> Message {
        .methodCall(destination: destination, path: Self.path, interface: Self.interface, member: "GetValue")
    }

    var declarations: [InterfaceDeclaration] {
        [
            InterfaceDeclaration(
                name: Self.interface,
                methods: [
                    MethodDeclaration(name: "GetValue", outputs: ["value": "u"], cachedPer: generation) { [self] _, _ in
                        built("GetValue")
                        if failing.withLock({ $0 }) { throw DBusError(name: "org.example.Error.Deliberate", message: "failing as asked") }
                        return [.uint32(value.withLock { $0 })]
                    },
                ],
                properties: [
                    PropertyDeclaration(name: "Value", signature: "u", cachedPer: generation, read: { [self] in
                        built("Value")
                        return .uint32(value.withLock { $0 })
                    }),
                    PropertyDeclaration(name: "Label", signature: "s", changeSignal: .constant, cachedPer: generation,
                                        read: { .string("cached object") }),
                    PropertyDeclaration(name: "Writable", signature: "u", cachedPer: generation,
                                        read: { [self] in .uint32(writable.withLock { $0 }) },
                                        write: { [self] new in
                        guard case .uint32(let number) = new else { throw DBusError.invalidArgs("Writable is a u") }
                        writable.withLock { $0 = number }
                    }),
                ]),
            InterfaceDeclaration(name: "org.example.Cached.Extra", properties: [
                PropertyDeclaration(name: "Live", signature: "u", read: { [self] in
                    built("Live")
                    return .uint32(3)
                }),
            ]),
        ]
    }
}

/// A private bus with a `CachedObject` served on its own connection for `body`.
private func withCachedObject(_ body: (PrivateBus, Connection, CachedObject) async throws -> Void) async throws {
    try await withPrivateBus { bus in
        try await withConnection(to: bus) { server in
            let object = CachedObject()
            try await server.export(object.declarations, at: CachedObject.path)
            try await body(bus, server, object)
        }
    }
}
