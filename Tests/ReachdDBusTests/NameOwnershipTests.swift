import ReachdDBus
import Glibc
import ReachdTestSupport
import Testing

/// Well-known names as the bus hands them out, queues them and takes them
/// away, and what a connection sees when the bus itself goes away.
@Suite("Name ownership and disconnection", .timeLimit(.minutes(1)))
struct NameOwnershipTests {
    static let name: BusName = "org.example.Owned"

    @Test("the first to ask for a free name becomes its primary owner")
    func requestNameMakesPrimaryOwner() async throws {
        try await withPrivateBus { bus in
            try await withConnection(to: bus) { first in
                let firstName = try await first.requiredUniqueName
                #expect(try await first.requestName(Self.name) == .primaryOwner)
                #expect(try await first.requestName(Self.name) == .alreadyOwner)
                #expect(try await first.nameOwner(of: Self.name) == firstName)
            }
        }
    }

    @Test("a second asker gets exists with doNotQueue, else waits in the queue and owns the name once the first releases it")
    func secondAskerQueuesUntilRelease() async throws {
        try await withPrivateBus { bus in
            try await withConnection(to: bus) { first in
                try await withConnection(to: bus) { second in
                    let firstName = try await first.requiredUniqueName
                    let secondName = try await second.requiredUniqueName
                    #expect(try await first.requestName(Self.name) == .primaryOwner)
                    #expect(try await second.requestName(Self.name, flags: .doNotQueue) == .exists)
                    #expect(try await second.requestName(Self.name) == .inQueue)
                    #expect(try await first.nameOwner(of: Self.name) == firstName)

                    let acquired = try await second.signals(matching: MatchRule(
                        sender: .bus, interface: .bus, member: "NameAcquired", arguments: [0: Self.name.rawValue]))
                    #expect(try await first.releaseName(Self.name) == .released)
                    #expect(try await first.releaseName(Self.name) == .notOwner)
                    // The bus hands the name over before it answers ReleaseName.
                    #expect(try await first.nameOwner(of: Self.name) == secondName)
                    var signals = acquired.makeAsyncIterator()
                    #expect(await signals.next()?.body == [.string(Self.name.rawValue)])
                }
            }
        }
    }

    @Test("replaceExisting takes a name whose owner allows replacement, and the old owner is told NameLost")
    func replacementTakesTheNameAndTellsTheOldOwner() async throws {
        try await withPrivateBus { bus in
            try await withConnection(to: bus) { first in
                try await withConnection(to: bus) { second in
                    let firstName = try await first.requiredUniqueName
                    let secondName = try await second.requiredUniqueName
                    #expect(try await first.requestName(Self.name, flags: .allowReplacement) == .primaryOwner)
                    let lost = try await first.signals(matching: MatchRule(sender: .bus, interface: .bus, member: "NameLost"))
                    #expect(try await second.requestName(Self.name, flags: .replaceExisting) == .primaryOwner)
                    #expect(try await first.nameOwner(of: Self.name) == secondName)
                    var signals = lost.makeAsyncIterator()
                    let signal = try #require(await signals.next())
                    #expect(signal.body == [.string(Self.name.rawValue)])
                    #expect(signal.sender == .bus)
                    #expect(signal.destination == firstName)
                }
            }
        }
    }

    @Test("a name whose owner does not allow replacement stays with it")
    func replacementNeedsTheOwnersConsent() async throws {
        try await withPrivateBus { bus in
            try await withConnection(to: bus) { first in
                try await withConnection(to: bus) { second in
                    let firstName = try await first.requiredUniqueName
                    #expect(try await first.requestName(Self.name) == .primaryOwner)
                    #expect(try await second.requestName(Self.name, flags: [.replaceExisting, .doNotQueue]) == .exists)
                    #expect(try await first.nameOwner(of: Self.name) == firstName)
                }
            }
        }
    }

    @Test("nameOwnerChanges yields nil for an unowned name, then the owner, then nil when the owner's process is killed")
    func nameOwnerChangesFollowsAProcessThatDies() async throws {
        try await withPrivateBus { bus in
            try await withConnection(to: bus) { watcher in
                let name: BusName = "com.example.Killed"
                var owners = try await watcher.nameOwnerChanges(of: name).makeAsyncIterator()
                #expect(await owners.next() == .some(nil))

                // A real client in another process, python-dbusmock, owns the name.
                let mock = try BackgroundTool("/usr/bin/python3", ["-m", "dbusmock", name.rawValue, "/com/example/Killed", name.rawValue],
                                              environment: ["DBUS_SESSION_BUS_ADDRESS": bus.address])
                defer { mock.stop(SIGKILL) }
                try await eventually(timeout: .seconds(30), "python-dbusmock owns \(name):\n\(mock.output)") {
                    if mock.hasExited { throw TestFailure("python-dbusmock exited:\n\(mock.output)") }
                    return try await watcher.nameOwner(of: name) != nil
                }
                let owner = try #require(await owners.next(), "the stream ended:\n\(mock.output)")
                let unique = try #require(owner, "the first change should name an owner:\n\(mock.output)")
                #expect(unique.isUnique)
                #expect(try await watcher.nameOwner(of: name) == unique)

                mock.stop(SIGKILL)
                #expect(await owners.next() == .some(nil))
                #expect(try await watcher.nameOwner(of: name) == nil)
            }
        }
    }

    @Test("waitUntilDisconnected returns when the bus stops, and calls afterwards throw Disconnected")
    func busGoingAwayDisconnects() async throws {
        try await withPrivateBus { bus in
            try await withConnection(to: bus) { connection in
                #expect(await connection.isConnected)
                bus.stop()
                await connection.waitUntilDisconnected()
                #expect(await !connection.isConnected)
                let call = await outcome { try await connection.nameOwner(of: Self.name) }
                #expect(call.dbusError?.name == "org.freedesktop.DBus.Error.Disconnected", "\(call)")
                let emitted = await outcome {
                    try await connection.emitSignal(path: "/org/example", interface: "org.example.Gone", member: "Late")
                }
                #expect(emitted.dbusError?.name == "org.freedesktop.DBus.Error.Disconnected", "\(emitted)")
            }
        }
    }

    @Test("a call waiting for its reply when the bus stops throws Disconnected instead of hanging")
    func pendingCallEndsWhenBusStops() async throws {
        try await withPrivateBus { bus in
            try await withTestObject(on: bus) { server, _ in
                try await withConnection(to: bus) { client in
                    let destination = try await server.requiredUniqueName
                    let slow = Task {
                        try await client.call(destination: destination, path: TestObject.path, interface: TestObject.interface,
                                              member: "Slow", body: [.uint32(10_000)])
                    }
                    // Let the call reach the server before the bus goes.
                    try await Task.sleep(for: .milliseconds(200))
                    bus.stop()
                    let result = await slow.result
                    #expect(result.dbusError?.name == "org.freedesktop.DBus.Error.Disconnected", "\(result)")
                    await client.waitUntilDisconnected()
                    await server.waitUntilDisconnected()
                }
            }
        }
    }

    @Test("closing a connection ends its pending calls with Disconnected and finishes its signal streams")
    func closingEndsCallsAndStreams() async throws {
        try await withPrivateBus { bus in
            try await withTestObject(on: bus) { server, _ in
                let client = try await Connection.open(address: bus.address)
                let destination = try await server.requiredUniqueName
                let signals = try await client.signals(matching: MatchRule(interface: TestObject.interface))
                let owners = try await client.nameOwnerChanges(of: Self.name)
                let slow = Task {
                    try await client.call(destination: destination, path: TestObject.path, interface: TestObject.interface,
                                          member: "Slow", body: [.uint32(10_000)])
                }
                try await Task.sleep(for: .milliseconds(200))
                await client.close()
                let result = await slow.result
                #expect(result.dbusError?.name == "org.freedesktop.DBus.Error.Disconnected", "\(result)")
                var signalIterator = signals.makeAsyncIterator()
                #expect(await signalIterator.next() == nil)
                var ownerIterator = owners.makeAsyncIterator()
                #expect(await ownerIterator.next() == .some(nil)) // the owner as it was: none
                #expect(await ownerIterator.next() == nil)        // then the end of the stream
                await client.waitUntilDisconnected()
                #expect(await server.isConnected)
            }
        }
    }
}
