import Glibc
import ReachdDBus
import ReachdTestSupport
import Synchronization
import Testing

/// Callers take turns (contract 7, §2): a connection answers its calls one sender (or account) at
/// a time in rounds, so a caller with one call waits for at most one call of each other sender,
/// not for everything another sender queued before it; each sender's calls keep their order, a
/// call whose admission waits holds its sender's later calls back, and a sender that left the
/// bus has none of its waiting calls answered.
///
/// Each test holds the server's thread (`Hold`, as a busy server is) until every call was routed
/// to it (each sender's round trip to the bus after its calls), so every call is waiting when it
/// comes back: the order it answers them in is then the turns' order, not the bus's.
@Suite("Callers take turns", .timeLimit(.minutes(1)))
struct CallTurnsTests {
    @Test("one call from another sender is answered within the first few of a queued flood of 120, not after it")
    func anotherSendersCallJumpsTheFlood() async throws {
        try await withTurnsServer { bus, server, log in
            let destination = try await server.requiredUniqueName
            try await withConnection(to: bus) { flooder in
                try await withConnection(to: bus) { victim in
                    try await flooder.send(Self.hold(destination))
                    // 120: the bus lets a connection have 128 calls waiting for their replies.
                    for number in 0..<120 { try await flooder.send(Self.note(destination, "flood", number)) }
                    try await victim.send(Self.note(destination, "victim", 0))
                    try await Self.release(log, after: [flooder, victim])
                    try await waitUntil(log, holds: 121)
                    let handled = log.entries
                    let position = handled.firstIndex { $0.tag == "victim" } ?? handled.count
                    // In arrival order it would be 121st. A few turns may be served before the
                    // victim's call is read (8 calls each; 4 on a machine busy with two loops), then
                    // at most one flood call before it.
                    #expect(position < 60, "the victim's call was answered after \(position) flood calls")
                    let flood = log.entries.filter { $0.tag == "flood" }.map(\.number)
                    #expect(flood == Array(0..<120), "the flood's own calls keep their order")
                }
            }
        }
    }

    @Test("with an account for the connections, ten connections of one account take one turn between another caller's calls")
    func oneAccountsConnectionsTakeOneTurn() async throws {
        try await withTurnsServer { bus, server, log in
            let destination = try await server.requiredUniqueName
            let flooders = try await (0..<10).asyncMap { _ in try await Connection.open(address: bus.address) }
            defer { for flooder in flooders { Task { await flooder.close() } } }
            let names = Set(try await flooders.asyncMap { try await $0.requiredUniqueName.rawValue })
            await server.takeCallTurns { sender in names.contains(sender.rawValue) ? "the flooding user" : nil }
            try await withConnection(to: bus) { victim in
                try await victim.send(Self.hold(destination))
                for number in 0..<30 {
                    for flooder in flooders { try await flooder.send(Self.note(destination, "flood", number)) }
                }
                // Five calls at once, after the flood's 300.
                for number in 0..<5 { try await victim.send(Self.note(destination, "victim", number)) }
                try await Self.release(log, after: flooders + [victim])
                try await waitUntil(log, holds: 305)
                let handled = log.entries
                let firstVictim = handled.firstIndex { $0.tag == "victim" } ?? handled.count
                let lastVictim = handled.lastIndex { $0.tag == "victim" } ?? handled.count
                // From the other caller's first call on: connection by connection, each of its next
                // four would wait for one call of each of the ten connections (40); as one account,
                // for one flood call each. (How many flood calls come before its first depends on
                // how much was read in a turn on a busy machine, not on the turns.)
                let floodBetween = handled[firstVictim..<lastVictim].filter { $0.tag == "flood" }.count
                let pattern = handled.prefix(lastVictim + 1).map { $0.tag == "victim" ? "V" : "f" }.joined()
                #expect(floodBetween <= 8, "between the other caller's first and last call, \(floodBetween) flood calls: \(pattern)")
                #expect(handled.filter { $0.tag == "victim" }.map(\.number) == Array(0..<5))
            }
        }
    }

    @Test("a sender whose admission is decided later has its calls answered in the order it sent them")
    func decisionLaterKeepsTheSendersOrder() async throws {
        try await withTurnsServer { bus, server, log in
            let destination = try await server.requiredUniqueName
            // The first call of the client waits 300 ms for its decision (an identification); calls
            // after it must not overtake it.
            let decided = Mutex(false)
            await server.admitCalls { _, call in
                guard call.member == "Note", !decided.withLock({ $0 }) else { return .admit }
                return .decideLater {
                    try? await Task.sleep(for: .milliseconds(300))
                    decided.withLock { $0 = true }
                    return nil
                }
            }
            try await withConnection(to: bus) { client in
                for number in 0..<20 { try await client.send(Self.note(destination, "client", number)) }
                _ = try await client.call(Self.note(destination, "client", 20), timeout: .seconds(20))
                #expect(log.entries.map(\.number) == Array(0...20), "answered in the order sent")
            }
        }
    }

    @Test("a sender that leaves the bus with calls waiting has none of them answered once the bus says it left")
    func departedSendersCallsAreDropped() async throws {
        try await withTurnsServer { bus, server, log in
            let destination = try await server.requiredUniqueName
            // The server follows departures, as reachd does for its monitors' owners.
            let departures = try await server.signals(matching: MatchRule(
                sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged", arguments: [2: ""]))
            _ = departures
            try await withConnection(to: bus) { holder in
                try await holder.send(Self.hold(destination))
                let doomed = try await Connection.open(address: bus.address)
                for number in 0..<200 { try await doomed.send(Self.note(destination, "doomed", number)) }
                // Every call routed, then the doomed caller gone (the bus says so before it routes
                // the holder's next message), then the server let go.
                _ = try await doomed.call(destination: .bus, path: "/org/freedesktop/DBus", interface: .bus, member: "GetId")
                let doomedName = try await doomed.requiredUniqueName
                await doomed.close()
                try await eventually(timeout: .seconds(20), "the bus sees the doomed caller gone") {
                    let owned = try await holder.call(destination: .bus, path: "/org/freedesktop/DBus", interface: .bus,
                                                      member: "NameHasOwner", body: [.string(doomedName.rawValue)])
                    return owned.first == .boolean(false)
                }
                try await holder.send(Self.note(destination, "after", 0))
                try await Self.release(log, after: [holder])
                try await eventually(timeout: .seconds(20), "the holder's later call is answered") { log.entries.contains { $0.tag == "after" } }
                let answered = log.entries.filter { $0.tag == "doomed" }.count
                #expect(answered < 200, "all 200 calls of a sender that had left were answered")
            }
        }
    }

    // MARK: The server

    static let path: ObjectPath = "/org/example/Turns"
    static let interface: InterfaceName = "org.example.Turns"

    static func note(_ destination: BusName, _ tag: String, _ number: Int) -> Message {
        .methodCall(destination: destination, path: path, interface: interface, member: "Note",
                    body: [.string(tag), .uint32(UInt32(number))])
    }

    static func hold(_ destination: BusName) -> Message {
        .methodCall(destination: destination, path: path, interface: interface, member: "Hold")
    }

    /// Returns once the bus has routed everything `connections` sent before (it answers each
    /// connection's messages in order), then lets the held server go.
    static func release(_ log: Log, after connections: [Connection]) async throws {
        for connection in connections {
            _ = try await connection.call(destination: .bus, path: "/org/freedesktop/DBus", interface: .bus, member: "GetId")
        }
        log.open()
    }

    /// What the server handled, in order; and the gate `Hold` waits at.
    final class Log: Sendable {
        struct Entry: Sendable { let tag: String; let number: Int }
        private let handled = Mutex<[Entry]>([])
        private let opened = Mutex(false)
        var entries: [Entry] { handled.withLock { $0 } }
        func add(_ entry: Entry) { handled.withLock { $0.append(entry) } }
        func open() { opened.withLock { $0 = true } }
        /// Blocks the calling thread until `open()`, at most 20 s.
        func waitUntilOpen() {
            for _ in 0..<2000 where !opened.withLock({ $0 }) { usleep(10_000) }
        }
    }

    /// `Note(s tag, u number)` logs its arguments; `Hold()` keeps the server's thread until the
    /// test opens the log's gate, as a busy server does.
    func withTurnsServer(_ body: (PrivateBus, Connection, Log) async throws -> Void) async throws {
        try await withPrivateBus { bus in
            let server = try await Connection.open(address: bus.address)
            let log = Log()
            try await server.export([InterfaceDeclaration(name: Self.interface, methods: [
                MethodDeclaration(name: "Note", inputs: ["tag": "s", "number": "u"]) { _, call in
                    guard case .uint32(let number) = call.body[1] else { return [] }
                    log.add(.init(tag: call.body[0].stringValue ?? "", number: Int(number)))
                    return []
                },
                MethodDeclaration(name: "Hold") { _, _ in
                    log.waitUntilOpen()
                    return []
                },
            ])], at: Self.path)
            do {
                try await body(bus, server, log)
                await server.close()
            } catch {
                await server.close()
                throw error
            }
        }
    }

    func waitUntil(_ log: Log, holds count: Int) async throws {
        try await eventually(timeout: .seconds(20), "the server handles all \(count) calls: \(log.entries.count) so far") {
            log.entries.count >= count
        }
    }
}

extension Sequence {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async throws -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
