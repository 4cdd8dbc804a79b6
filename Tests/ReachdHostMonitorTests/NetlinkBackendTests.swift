import ReachdDBus
import ReachdTestSupport
import Testing

/// The main object without NetworkManager: the default route read from the
/// kernel, and live switches as NetworkManager comes and goes (docs/mapping.md,
/// "Kernel backend"), shown in `Backend`.
@Suite("The netlink backend", .serialized)
struct NetlinkBackendTests {
    @Test func mainObjectFollowsTheKernelWhenNetworkManagerIsAbsent() async throws {
        try await withReachdInNamespace(withNetworkManager: false) { namespaces, client in
            #expect(try await client.string("Backend") == "netlink")
            // The default route goes via the peer: Reachable, not IsDirect.
            #expect(try await client.status() == .reachable)
            #expect(try await client.string("Interface") == namespaces.clientInterface)
            #expect(try await client.string("InterfaceType") == "ethernet")
            #expect(try await client.string("Connectivity") == "unknown")
            #expect(try await client.property("Metered") == .boolean(false))

            let changes = try await client.recordSignals(
                interface: ReachdClient.mainInterface, member: "ReachabilityChanged", path: ReachdClient.mainPath)
            defer { changes.stop() }
            try await namespaces.deleteDefaultRoute()
            try await eventually("the main object says not reachable: \(changes.reachabilityChanges(of: ReachdClient.mainPath))") {
                try await client.status() == .notReachable
            }
            #expect(try await client.string("Interface") == "")
            #expect(try await client.string("InterfaceType") == "none")
            try await namespaces.restoreDefaultRoute()
            try await eventually("the main object is reachable again") { try await client.status() == .reachable }
            try await Task.sleep(for: .milliseconds(500))  // room for a wrong extra signal
            #expect(changes.reachabilityChanges(of: ReachdClient.mainPath) == [.notReachable, .reachable])
            #expect(try await client.string("Backend") == "netlink")
        }
    }

    @Test func mainObjectFollowsTheKernelWithNoSystemBusAtAll() async throws {
        try await withNetworkNamespaces { namespaces in
            try await withPrivateBus { session in
                try await withReachd(session: session, systemBus: absentSystemBusAddress(),
                                     network: .named(namespaces.clientNamespace)) { _ in
                    try await withClient(session) { (client: ReachdClient) async throws in
                        #expect(try await client.string("Backend") == "netlink")
                        #expect(try await client.status() == .reachable)
                        #expect(try await client.string("Interface") == namespaces.clientInterface)
                    }
                }
            }
        }
    }

    @Test func networkManagerAppearingTakesOverWithoutAWrongIntermediateValue() async throws {
        try await withReachdInNamespace(withNetworkManager: false) { namespaces, client in
            #expect(try await client.string("Backend") == "netlink")
            #expect(try await client.status() == .reachable)
            let properties = try await client.recordSignals(
                interface: .properties, member: "PropertiesChanged", path: ReachdClient.mainPath)
            let changes = try await client.recordSignals(
                interface: ReachdClient.mainInterface, member: "ReachabilityChanged", path: ReachdClient.mainPath)
            defer { properties.stop(); changes.stop() }

            try await namespaces.harness("start-nm")
            try await eventually("Backend becomes networkmanager") { try await client.string("Backend") == "networkmanager" }
            // NetworkManager is on the bus before it has taken the veth over; give
            // it time to finish, so that a wrong value on the way would show.
            try await Task.sleep(for: .seconds(1))
            expectNoWrongIntermediateValue(properties.messages, changes.messages, backend: "networkmanager")
            #expect(try await client.status() == .reachable)
            #expect(try await client.string("Backend") == "networkmanager")
        }
    }

    @Test func networkManagerLeavingHandsBackToTheKernelWithoutAWrongIntermediateValue() async throws {
        try await withReachdInNamespace { namespaces, client in
            #expect(try await client.string("Backend") == "networkmanager")
            #expect(try await client.status() == .reachable)
            let properties = try await client.recordSignals(
                interface: .properties, member: "PropertiesChanged", path: ReachdClient.mainPath)
            let changes = try await client.recordSignals(
                interface: ReachdClient.mainInterface, member: "ReachabilityChanged", path: ReachdClient.mainPath)
            defer { properties.stop(); changes.stop() }

            try await namespaces.harness("kill-nm")
            try await eventually("Backend becomes netlink") { try await client.string("Backend") == "netlink" }
            try await Task.sleep(for: .seconds(1))
            expectNoWrongIntermediateValue(properties.messages, changes.messages, backend: "netlink")
            #expect(try await client.status() == .reachable)
        }
    }

    /// The network stayed up throughout: every announced value says so.
    private func expectNoWrongIntermediateValue(
        _ properties: [Message], _ changes: [Message], backend: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let announced = properties.map { "\($0.body)" }.joined(separator: "\n")
        #expect(properties.changedValues(of: "Backend") == [.string(backend)],
                "Backend changed once, straight to \(backend); announced:\n\(announced)", sourceLocation: sourceLocation)
        #expect(properties.changedValues(of: "Status").allSatisfy { $0 == .int32(2) },
                "Status never left 2; announced:\n\(announced)", sourceLocation: sourceLocation)
        #expect(properties.changedValues(of: "Reachable").allSatisfy { $0 == .boolean(true) },
                "Reachable never became false; announced:\n\(announced)", sourceLocation: sourceLocation)
        #expect(properties.changedValues(of: "Interface").allSatisfy { $0 != .string("") },
                "Interface never became empty; announced:\n\(announced)", sourceLocation: sourceLocation)
        // (Status, Flags) were the same before and after, so there is nothing to signal.
        #expect(changes.map(\.body).isEmpty, "no ReachabilityChanged; got \(changes.map(\.body))", sourceLocation: sourceLocation)
    }
}
