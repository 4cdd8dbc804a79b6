import Foundation
@testable import ReachdDBus
import ReachdTestSupport
import Testing

/// A message larger than a connection reads (`BusRelay.passLimit`) is never read whole, whoever
/// sends it and whatever it is (contract 7, §2): a call is answered `LimitsExceeded`, a signal is
/// dropped, a reply fails its call; the connection goes on. Each from a real bus.
@Suite("A message too large to read costs its size in nobody's memory")
struct OversizedMessageTests {
    static let overLimit = String(repeating: "x", count: BusRelay.passLimit + 1024)
    static let withinLimit = String(repeating: "y", count: BusRelay.passLimit - 64 * 1024)

    @Test("a call over the limit is answered LimitsExceeded unread, and its sender's next call is answered")
    func oversizedCallIsRefused() async throws {
        try await withPrivateBus { bus in
            let (server, _) = try await TestObject.serve(on: bus.address)
            let client = try await Connection.open(address: bus.address)
            let destination = await server.uniqueName
            do {
                _ = try await client.call(destination: destination, path: TestObject.path, interface: TestObject.interface,
                                          member: "Echo", body: [.variant(.string(Self.overLimit))])
                Issue.record("the oversized call was answered")
            } catch let error as DBusError {
                #expect(error.name == "org.freedesktop.DBus.Error.LimitsExceeded", "\(error)")
                #expect(error.message.contains("not read"), "\(error)")
            }
            let reply = try await client.call(destination: destination, path: TestObject.path, interface: TestObject.interface,
                                              member: "Concat", body: [.string("still "), .string("here")])
            #expect(reply == [.string("still here")])
            await client.close()
            await server.close()
        }
    }

    @Test("a call just within the limit is read and answered whole")
    func callWithinTheLimitIsAnswered() async throws {
        try await withPrivateBus { bus in
            let (server, _) = try await TestObject.serve(on: bus.address)
            let client = try await Connection.open(address: bus.address)
            let reply = try await client.call(destination: await server.uniqueName, path: TestObject.path, interface: TestObject.interface,
                                              member: "Echo", body: [.variant(.string(Self.withinLimit))])
            #expect(reply == [.variant(.string(Self.withinLimit))])
            await client.close()
            await server.close()
        }
    }

    @Test("a signal over the limit is dropped unread; the sender's next signal arrives, and nothing else")
    func oversizedSignalIsDropped() async throws {
        try await withPrivateBus { bus in
            let sender = try await Connection.open(address: bus.address)
            let receiver = try await Connection.open(address: bus.address)
            let signals = try await receiver.signals(matching: MatchRule(interface: "org.example.Big"))
            var iterator = signals.makeAsyncIterator()
            try await sender.emitSignal(path: "/org/example/Big", interface: "org.example.Big", member: "Huge", body: [.string(Self.overLimit)])
            try await sender.emitSignal(path: "/org/example/Big", interface: "org.example.Big", member: "Small", body: [.string("after")])
            let received = try #require(await iterator.next())
            #expect(received.member == "Small" && received.body == [.string("after")])
            await sender.close()
            await receiver.close()
        }
    }

    @Test("a reply over the limit fails its call with LimitsExceeded; the connection's next call is answered")
    func oversizedReplyFailsTheCall() async throws {
        try await withPrivateBus { bus in
            let server = try await Connection.open(address: bus.address)
            try await server.export([InterfaceDeclaration(name: "org.example.Big", methods: [
                MethodDeclaration(name: "Give", inputs: ["length": "u"], outputs: ["text": "s"]) { _, call in
                    guard case .uint32(let length) = call.body[0] else { return [] }
                    return [.string(String(repeating: "z", count: Int(length)))]
                },
            ])], at: "/org/example/Big")
            let client = try await Connection.open(address: bus.address)
            let destination = await server.uniqueName
            func give(_ length: Int) async throws -> [DBusValue] {
                try await client.call(destination: destination, path: "/org/example/Big", interface: "org.example.Big",
                                      member: "Give", body: [.uint32(UInt32(length))])
            }
            await #expect(throws: DBusError.self) { _ = try await give(BusRelay.passLimit + 1) }
            do {
                _ = try await give(BusRelay.passLimit + 1)
            } catch let error as DBusError {
                #expect(error.name == "org.freedesktop.DBus.Error.LimitsExceeded", "\(error)")
            }
            #expect(try await give(5) == [.string("zzzzz")])
            await client.close()
            await server.close()
        }
    }

    @Test("a closed connection leaves the bus at once: its relay closes the bus's socket as libdbus closes its own")
    func closedConnectionLeavesTheBus() async throws {
        try await withPrivateBus { bus in
            let watcher = try await Connection.open(address: bus.address)
            for _ in 0..<4 {
                let connection = try await Connection.open(address: bus.address)
                let name = try #require(await connection.uniqueName)
                #expect(try await watcher.callBus("NameHasOwner", [.string(name.rawValue)]) == [.boolean(true)])
                await connection.close()
                try await eventually(timeout: .seconds(10), "\(name) leaves the bus") {
                    try await watcher.callBus("NameHasOwner", [.string(name.rawValue)]) == [.boolean(false)]
                }
            }
            await watcher.close()
        }
    }
}
