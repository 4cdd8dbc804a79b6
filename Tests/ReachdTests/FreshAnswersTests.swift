import ReachdDBus
import ReachdTestSupport
import Testing

/// reachd builds its answers to `GetStatus`, `GetPath`, `Get` and `GetAll` once per change and
/// sends them again; a client that reads right after a change must still get the new values,
/// every way it can read them. Each change comes after every answer was read (and so kept) at
/// the value before it.
@Suite("reachd's answers right after a change are the new values, every way they are read", .timeLimit(.minutes(2)))
struct FreshAnswersTests {
    static let reachability = InterfaceName(rawValue: ReachdProcess.interface)!
    static let path = ObjectPath(rawValue: ReachdProcess.path)!
    static let busName = BusName(rawValue: ReachdProcess.busName)!

    /// NetworkManager changes that each alter what reachd publishes, from Wi-Fi and back.
    static let changes: [(label: String, change: @Sendable (NetworkManagerMock) async throws -> Void)] = [
        ("Metered YES", { try await $0.setManager("Metered", "u", "1") }),
        ("Connectivity PORTAL", { try await $0.setManager("Connectivity", "u", "2") }),
        ("Connectivity FULL", { try await $0.setManager("Connectivity", "u", "4") }),
        ("ethernet primary", { try await $0.setManager("PrimaryConnection", "o", NetworkManagerMock.manager + "/ActiveConnection/eth0") }),
        ("Wi-Fi primary", { try await $0.setManager("PrimaryConnection", "o", NetworkManagerMock.manager + "/ActiveConnection/wifi0") }),
        ("DISCONNECTED", { try await $0.setState(20) }),
        ("CONNECTED_GLOBAL", { try await $0.setState(70) }),
        ("Metered NO", { try await $0.setManager("Metered", "u", "0") }),
    ]

    @Test("after each NetworkManager change is announced, GetStatus, GetPath, GetAll and every Get answer the announced values")
    func everyReadAfterEachChangeIsTheAnnouncedValue() async throws {
        try await withReachdOverWiFi { session, mock, _, _ in
            try await withConnection(to: session) { client in
                let announcements = try await client.signals(matching: MatchRule(
                    interface: .properties, member: "PropertiesChanged", path: Self.path))
                var iterator = announcements.makeAsyncIterator()
                var reads = try await Self.readEverything(client)
                #expect(reads.disagreements(with: [:]).isEmpty, "at start: \(reads.disagreements(with: [:]))")
                for (label, change) in Self.changes {
                    try await change(mock)
                    guard let signal = await iterator.next() else { throw TestFailure("the subscription ended") }
                    let announced = try Self.changedValues(in: signal)
                    reads = try await Self.readEverything(client)
                    let wrong = reads.disagreements(with: announced)
                    #expect(wrong.isEmpty, "right after '\(label)' announced \(announced.keys.sorted()):\n\(wrong.joined(separator: "\n"))")
                }
            }
        }
    }

    @Test("right after ManagerForAddress or Release answers, and after a holder leaves the bus, MonitorCount is the new count every way")
    func monitorCountIsFreshEveryWay() async throws {
        try await withPrivateBus { session in
            try await withReachd(session: session, systemBus: absentSystemBusAddress()) { _ in
                try await withConnection(to: session) { client in
                    let announcements = try await client.signals(matching: MatchRule(
                        interface: .properties, member: "PropertiesChanged", path: Self.path))
                    var iterator = announcements.makeAsyncIterator()
                    func expectCount(_ count: UInt32, _ after: String) async throws {
                        let reads = try await Self.readEverything(client)
                        let wrong = reads.disagreements(with: ["MonitorCount": .uint32(count)])
                        #expect(wrong.isEmpty, "right after \(after):\n\(wrong.joined(separator: "\n"))")
                    }
                    try await expectCount(0, "start")
                    let first = try await Self.monitor(for: "127.0.0.1", on: client)
                    try await expectCount(1, "the first ManagerForAddress")
                    _ = try await Self.monitor(for: "127.0.0.2", on: client)
                    try await expectCount(2, "the second ManagerForAddress")
                    _ = try await client.call(destination: Self.busName, path: first,
                                              interface: "io.reachd.Reachability1.Monitor", member: "Release")
                    try await expectCount(1, "Release")
                    try await withConnection(to: session) { holder in
                        _ = try await Self.monitor(for: "127.0.0.3", on: holder)
                        try await expectCount(2, "another client's ManagerForAddress")
                    }
                    // The holder has left: its monitor goes, announced. The subscription still holds the
                    // earlier announcements (1, 2, 1 after Release, 2 from the holder): the one awaited is
                    // the 1 after the second 2, not the Release's, which a fast reader would take.
                    var twos = 0
                    while let signal = await iterator.next() {
                        let count = try Self.changedValues(in: signal)["MonitorCount"]
                        if count == .uint32(2) { twos += 1 }
                        if count == .uint32(1), twos == 2 { break }
                    }
                    try await expectCount(1, "the holder left the bus")
                }
            }
        }
    }

    // MARK: Reading

    /// Every way a client reads reachd's main object, read one after another.
    struct Reads {
        var getStatus: [DBusValue]
        var getPath: [String: DBusValue]
        var getAll: [String: DBusValue]
        /// `GetAll("")`: every interface of the object.
        var getAllOfEveryInterface: [String: DBusValue]
        var get: [String: DBusValue]

        /// What differs from `expected` (property name → value) in any read, and any two ways of
        /// reading that disagree with each other.
        func disagreements(with expected: [String: DBusValue]) -> [String] {
            var wrong: [String] = []
            for (name, value) in expected {
                for (way, read) in [("GetPath", getPath), ("GetAll", getAll), ("GetAll(\"\")", getAllOfEveryInterface), ("Get", get)]
                where read[name] != value {
                    wrong.append("\(way) \(name): \(read[name].map { "\($0)" } ?? "missing"), announced \(value)")
                }
            }
            for (way, read) in [("GetPath", getPath), ("GetAll(\"\")", getAllOfEveryInterface), ("Get", get)] where read != getAll {
                let names = Set(read.keys).union(getAll.keys).filter { read[$0] != getAll[$0] }.sorted()
                wrong.append("\(way) disagrees with GetAll on \(names.map { "\($0): \(read[$0].map { "\($0)" } ?? "missing") against \(getAll[$0].map { "\($0)" } ?? "missing")" })")
            }
            if getStatus != [getAll["Status"], getAll["Flags"]].compactMap({ $0 }) {
                wrong.append("GetStatus \(getStatus), GetAll's Status and Flags \(String(describing: getAll["Status"])), \(String(describing: getAll["Flags"]))")
            }
            return wrong
        }
    }

    static func readEverything(_ client: Connection) async throws -> Reads {
        func call(_ interface: InterfaceName, _ member: MemberName, _ body: [DBusValue] = []) async throws -> [DBusValue] {
            try await client.call(destination: busName, path: path, interface: interface, member: member, body: body)
        }
        let getStatus = try await call(reachability, "GetStatus")
        let getPath = try entries(of: try await call(reachability, "GetPath").first)
        let getAll = try entries(of: try await call(.properties, "GetAll", [.string(reachability.rawValue)]).first)
        let getAllOfEveryInterface = try entries(of: try await call(.properties, "GetAll", [.string("")]).first)
        var get: [String: DBusValue] = [:]
        for name in getAll.keys {
            get[name] = try await call(.properties, "Get", [.string(reachability.rawValue), .string(name)]).first?.unwrappingVariant
        }
        return Reads(getStatus: getStatus, getPath: getPath, getAll: getAll, getAllOfEveryInterface: getAllOfEveryInterface, get: get)
    }

    /// An `a{sv}` as name → value.
    static func entries(of value: DBusValue?) throws -> [String: DBusValue] {
        guard case .dictionary(_, _, let entries)? = value else { throw TestFailure("not a dictionary: \(String(describing: value))") }
        var result: [String: DBusValue] = [:]
        for entry in entries {
            guard let name = entry.key.stringValue else { throw TestFailure("a key that is not a string: \(entry.key)") }
            result[name] = entry.value.unwrappingVariant
        }
        return result
    }

    /// The changed properties a `PropertiesChanged` announces, name → value.
    static func changedValues(in signal: Message) throws -> [String: DBusValue] {
        guard signal.body.count == 3, signal.body[0].stringValue == reachability.rawValue else {
            throw TestFailure("not a PropertiesChanged of \(reachability): \(signal.body)")
        }
        return try entries(of: signal.body[1])
    }

    static func monitor(for address: String, on client: Connection) async throws -> ObjectPath {
        let reply = try await client.call(destination: busName, path: path, interface: reachability,
                                          member: "ManagerForAddress", body: [.string(address)])
        guard case .objectPath(let monitor)? = reply.first else { throw TestFailure("ManagerForAddress answered \(reply)") }
        return monitor
    }
}
