import ReachdDBus
import ReachdTestSupport
import Testing

/// A subscription to a well-known sender means that name's current owner, and nobody else:
/// the connection follows the owner (GDBus's rule since CVE-2024-34397), on a real bus where
/// two names change hands while a third connection sends unicast signals dressed as theirs.
@Suite("Signals belong to their sender's owner", .timeLimit(.minutes(1)))
struct SenderOwnerTests {
    static let a: BusName = "org.example.OwnerA"
    static let b: BusName = "org.example.OwnerB"

    /// Each name's signals: its own interface and path, a string saying who sent it.
    static func interface(of name: BusName) -> InterfaceName { name == a ? "org.example.A" : "org.example.B" }
    static func path(of name: BusName) -> ObjectPath { name == a ? "/org/example/A" : "/org/example/B" }

    static func said(_ text: String, as name: BusName, to destination: BusName? = nil) -> Message {
        var message = Message.signal(path: path(of: name), interface: interface(of: name), member: "Said", body: [.string(text)])
        message.destination = destination
        return message
    }

    /// What a subscriber saw, in words: `owner :1.5`, `owner none`, or the signal's text.
    static func words(_ event: SignalEvent) -> String {
        switch event {
        case .ownerChanged(_, let owner): "owner \(owner?.rawValue ?? "none")"
        case .signal(let message): message.body.first?.stringValue ?? "\(message)"
        }
    }

    @Test("owners churn: each subscriber hears its name's owners and their signals in order; spoofed and former owners' unicast signals and the other name's NameOwnerChanged never arrive")
    func onlyTheCurrentOwnerIsHeard() async throws {
        try await withPrivateBus { bus in
            try await withConnection(to: bus) { client in
                try await withConnection(to: bus) { attacker in
                    let clientName = try await client.requiredUniqueName
                    // A watches its owner through the layer; B's rule names only its sender (no
                    // interface), the shape that let net.connman's NameOwnerChanged into the
                    // NetworkManager backend; a third subscriber asks for B's NameOwnerChanged itself.
                    let (eventsA, sinkA) = AsyncStream.makeStream(of: SignalEvent.self)
                    try await client.deliverEvents(matchingAny: [MatchRule(sender: Self.a)], watching: [Self.a], to: sinkA) { $0 }
                    let signalsB = try await client.signals(matching: MatchRule(sender: Self.b))
                    let ownerChangesB = try await client.signals(matching: MatchRule(
                        sender: .bus, interface: .bus, member: "NameOwnerChanged", arguments: [0: Self.b.rawValue]))

                    var expectedA = ["owner none"], expectedB: [String] = [], expectedChangesB: [String] = []
                    var formerOwners: [Connection] = []
                    defer { for former in formerOwners { Task { await former.close() } } }
                    for round in 1...3 {
                        for name in [Self.a, Self.b] {
                            let owner = try await Connection.open(address: bus.address)
                            let ownerName = try await owner.requiredUniqueName
                            #expect(try await owner.requestName(name) == .primaryOwner)
                            try await owner.send(Self.said("\(name) \(round)", as: name))
                            // Straight to the client, dressed as the owner's: never delivered.
                            try await attacker.send(Self.said("spoofed \(name) \(round)", as: name, to: clientName))
                            try await attacker.send(Self.said("spoofed broadcast \(name) \(round)", as: name))
                            for former in formerOwners {
                                try await former.send(Self.said("former owner \(name) \(round)", as: name, to: clientName))
                            }
                            #expect(try await owner.releaseName(name) == .released)
                            formerOwners.append(owner)
                            if name == Self.a {
                                expectedA += ["owner \(ownerName)", "\(name) \(round)", "owner none"]
                            } else {
                                expectedB += ["\(name) \(round)"]
                                expectedChangesB += ["\(name) \(ownerName)", "\(name) none"]
                            }
                        }
                    }
                    // The last owners say "end": once it has arrived, everything before it has.
                    for name in [Self.a, Self.b] {
                        let owner = try await Connection.open(address: bus.address)
                        formerOwners.append(owner)
                        let ownerName = try await owner.requiredUniqueName
                        #expect(try await owner.requestName(name) == .primaryOwner)
                        try await attacker.send(Self.said("spoofed \(name) end", as: name, to: clientName))
                        try await owner.send(Self.said("\(name) end", as: name))
                        if name == Self.a {
                            expectedA += ["owner \(ownerName)", "\(name) end"]
                        } else {
                            expectedB += ["\(name) end"]
                            expectedChangesB += ["\(name) \(ownerName)"]
                        }
                    }

                    var seenA: [String] = []
                    for await event in eventsA {
                        seenA.append(Self.words(event))
                        if seenA.last == "\(Self.a) end" { break }
                    }
                    #expect(seenA == expectedA)

                    var seenB: [String] = []
                    for await signal in signalsB {
                        #expect(signal.sender != .bus, "the bus's signal reached B's subscription: \(signal)")
                        seenB.append(signal.body.first?.stringValue ?? "\(signal)")
                        if seenB.last == "\(Self.b) end" { break }
                    }
                    #expect(seenB == expectedB)

                    var seenChangesB: [String] = []
                    for await change in ownerChangesB {
                        let name = change.body.first?.stringValue ?? "?"
                        let owner = change.body.count == 3 ? change.body[2].stringValue ?? "?" : "?"
                        seenChangesB.append("\(name) \(owner.isEmpty ? "none" : owner)")
                        if seenChangesB.count == expectedChangesB.count { break }
                    }
                    #expect(seenChangesB == expectedChangesB, "A's NameOwnerChanged never reaches B's")
                    sinkA.finish()
                }
            }
        }
    }

    @Test("a subscription made while the name is owned hears that owner first, then its signals; one made for an unowned name hears none and no signal")
    func firstEventIsTheOwnerWhenSubscribing() async throws {
        try await withPrivateBus { bus in
            try await withConnection(to: bus) { owner in
                try await withConnection(to: bus) { client in
                    let ownerName = try await owner.requiredUniqueName
                    #expect(try await owner.requestName(Self.a) == .primaryOwner)
                    let (events, sink) = AsyncStream.makeStream(of: SignalEvent.self)
                    try await client.deliverEvents(matchingAny: [MatchRule(sender: Self.a, interface: Self.interface(of: Self.a))],
                                                   watching: [Self.a], to: sink) { $0 }
                    // A second subscriber to the same name shares the owner the first one found.
                    var owners = try await client.nameOwnerChanges(of: Self.a).makeAsyncIterator()
                    #expect(await owners.next() == .some(ownerName))
                    try await owner.send(Self.said("hello", as: Self.a))
                    var iterator = events.makeAsyncIterator()
                    #expect(await iterator.next().map(Self.words) == "owner \(ownerName)")
                    #expect(await iterator.next().map(Self.words) == "hello")
                    sink.finish()

                    // B has no owner: a signal dressed as B's, sent straight to the client, finds nobody to match.
                    let signalsB = try await client.signals(matching: MatchRule(sender: Self.b))
                    let clientName = try await client.requiredUniqueName
                    let marker = try await client.signals(matching: MatchRule(interface: Self.interface(of: Self.b)))
                    try await owner.send(Self.said("not B's", as: Self.b, to: clientName))
                    try await owner.send(Self.said("marker", as: Self.b, to: clientName))
                    var markers = marker.makeAsyncIterator()
                    #expect(await markers.next()?.body.first?.stringValue == "not B's")
                    #expect(await markers.next()?.body.first?.stringValue == "marker")
                    // B's subscription got nothing before the marker arrived (the connection delivers in order).
                    let (nothing, end) = AsyncStream.makeStream(of: String.self)
                    let reader = Task { for await signal in signalsB { end.yield(signal.body.first?.stringValue ?? "?") } }
                    try await Task.sleep(for: .milliseconds(100))
                    reader.cancel()
                    end.finish()
                    var got: [String] = []
                    for await text in nothing { got.append(text) }
                    #expect(got.isEmpty, "B has no owner, so nothing matches sender='\(Self.b)': \(got)")
                }
            }
        }
    }
}
