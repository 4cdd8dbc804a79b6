import ReachdDBus
import ReachdTestSupport
import Testing

/// Match rules: the text sent to the bus, and the same rule applied locally.
@Suite("Match rules", .timeLimit(.minutes(1)))
struct MatchRuleTests {
    @Test("the bus text lists the set fields in a fixed order, arguments sorted by index")
    func descriptionIsTheBusText() {
        #expect(MatchRule().description == "type='signal'")
        #expect(MatchRule(sender: "org.freedesktop.NetworkManager", interface: "org.freedesktop.NetworkManager",
                          member: "StateChanged").description
                == "type='signal',sender='org.freedesktop.NetworkManager',interface='org.freedesktop.NetworkManager',member='StateChanged'")
        #expect(MatchRule(path: "/a", pathNamespace: "/b", arguments: [2: "z", 0: "x"]).description
                == "type='signal',path='/a',path_namespace='/b',arg0='x',arg2='z'")
    }

    @Test("a quote in an argument is written as the bus's quoting asks")
    func quoteInArgumentIsEscaped() {
        #expect(MatchRule(arguments: [0: "it's"]).description == "type='signal',arg0='it'\\''s'")
    }

    static func signal(
        sender: BusName? = ":1.7", path: ObjectPath = "/org/example/Test", interface: InterfaceName = "org.example.Test",
        member: MemberName = "Said", body: [DBusValue] = [.string("hello")]
    ) -> Message {
        var message = Message.signal(path: path, interface: interface, member: member, body: body)
        message.sender = sender
        return message
    }

    @Test("matches compares interface, member, path, path namespace and string arguments")
    func matchesComparesFields() {
        let said = Self.signal()
        #expect(MatchRule().matches(said))
        #expect(MatchRule(interface: "org.example.Test", member: "Said", path: "/org/example/Test").matches(said))
        #expect(!MatchRule(interface: "org.example.Other").matches(said))
        #expect(!MatchRule(member: "Sung").matches(said))
        #expect(!MatchRule(path: "/org/example").matches(said))
        #expect(MatchRule(pathNamespace: "/org/example").matches(said))
        #expect(MatchRule(pathNamespace: "/org/example/Test").matches(said))
        #expect(MatchRule(pathNamespace: "/").matches(said))
        #expect(!MatchRule(pathNamespace: "/org/exam").matches(said))
        #expect(MatchRule(arguments: [0: "hello"]).matches(said))
        #expect(!MatchRule(arguments: [0: "hell"]).matches(said))
        #expect(!MatchRule(arguments: [1: "hello"]).matches(said))
        #expect(!MatchRule(arguments: [0: "1"]).matches(Self.signal(body: [.int32(1)])))
    }

    @Test("a unique sender is compared locally, a well-known one against its current owner, none matching without one")
    func senderMatching() {
        let said = Self.signal(sender: ":1.7")
        #expect(MatchRule(sender: ":1.7").matches(said))
        #expect(!MatchRule(sender: ":1.8").matches(said))
        // Signals carry the owner's unique name: a well-known sender passes only its owner's.
        #expect(MatchRule(sender: "org.example.Owner").matches(said, owner: { $0 == "org.example.Owner" ? ":1.7" : nil }))
        #expect(!MatchRule(sender: "org.example.Owner").matches(said, owner: { _ in ":1.8" }))
        #expect(!MatchRule(sender: "org.example.Owner").matches(said, owner: { _ in nil }))
        #expect(!MatchRule(sender: .bus).matches(said))
        #expect(MatchRule(sender: .bus).matches(Self.signal(sender: .bus)))
        #expect(!MatchRule(sender: "org.example.Owner").matches(Self.signal(sender: .bus), owner: { _ in nil }))
    }

    @Test("only signals match")
    func onlySignalsMatch() {
        var call = Message.methodCall(destination: nil, path: "/org/example/Test", interface: "org.example.Test", member: "Said")
        call.sender = ":1.7"
        #expect(!MatchRule().matches(call))
    }

    @Test("a rule with a quoted argument is accepted by a real bus and delivers only that argument")
    func quotedArgumentWorksOnTheBus() async throws {
        try await withPrivateBus { bus in
            try await withConnection(to: bus) { sender in
                try await withConnection(to: bus) { receiver in
                    let signals = try await receiver.signals(matching: MatchRule(interface: "org.example.Quotes", arguments: [0: "it's"]))
                    for text in ["its", "it's", "it''s", "it's"] {
                        try await sender.emitSignal(path: "/org/example", interface: "org.example.Quotes", member: "Text",
                                                    body: [.string(text)])
                    }
                    var received: [String] = []
                    for await signal in signals {
                        received.append(signal.body.first?.stringValue ?? "?")
                        if received.count == 2 { break }
                    }
                    #expect(received == ["it's", "it's"])
                }
            }
        }
    }
}

private extension MatchRule {
    /// Matching where no well-known name has an owner.
    func matches(_ message: Message) -> Bool { matches(message, owner: { _ in nil }) }
}
