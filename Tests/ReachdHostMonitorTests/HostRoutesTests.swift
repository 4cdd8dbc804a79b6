import ReachdDBus
import ReachdTestSupport
import Testing

/// Host monitors answer from the kernel's routes, in a client namespace joined
/// to a peer by a veth (peer .1, client .2, default route via the peer) with a
/// real DNS server (dnsmasq) in the peer: docs/mapping.md, "Host monitors and CheckHost".
@Suite("Host monitors in a network namespace", .serialized)
struct HostRoutesTests {
    /// Documentation addresses (RFC 5737): no route but the default one leads
    /// there, and nothing is ever sent to them (a route lookup sends nothing).
    static let behindTheGateway = ["192.0.2.10", "198.51.100.20"]

    @Test func peerOnTheLinkIsReachableAndDirect() async throws {
        try await withReachdInNamespace { namespaces, client in
            let monitor = try await client.managerForAddress(namespaces.peerAddress)
            #expect(try await client.answer(of: monitor) == .reachableDirect)
            #expect(try await client.host(of: monitor) == namespaces.peerAddress)
            #expect(try await client.string("Interface", of: monitor, interface: ReachdClient.monitorInterface)
                    == namespaces.clientInterface)
            #expect(try await client.property("Reachable", of: monitor, interface: ReachdClient.monitorInterface)
                    == .boolean(true))
            #expect(try await client.checkHost(namespaces.peerAddress) == .reachableDirect)
        }
    }

    @Test func addressBehindTheGatewayIsReachableWithoutIsDirect() async throws {
        try await withReachdInNamespace { namespaces, client in
            for address in Self.behindTheGateway {
                let monitor = try await client.managerForAddress(address)
                #expect(try await client.answer(of: monitor) == .reachable, "\(address)")
                #expect(try await client.string("Interface", of: monitor, interface: ReachdClient.monitorInterface)
                        == namespaces.clientInterface)
                #expect(try await client.checkHost(address) == .reachable, "\(address)")
            }
        }
    }

    @Test func namespacesOwnAddressIsLocal() async throws {
        try await withReachdInNamespace { namespaces, client in
            let monitor = try await client.managerForAddress(namespaces.clientAddress)
            #expect(try await client.answer(of: monitor) == .local)
            #expect(try await client.checkHost(namespaces.clientAddress) == .local)
        }
    }

    @Test func loopbackAddressesAreLocal() async throws {
        try await withReachdInNamespace { _, client in
            for address in ["127.0.0.1", "::1"] {
                let monitor = try await client.managerForAddress(address)
                #expect(try await client.answer(of: monitor) == .local, "\(address)")
                #expect(try await client.string("Interface", of: monitor, interface: ReachdClient.monitorInterface) == "lo")
                #expect(try await client.checkHost(address) == .local, "\(address)")
            }
        }
    }

    @Test func nameTheDNSServerKnowsIsReachableUntilTheRouteGoes() async throws {
        try await withReachdInNamespace { namespaces, client in
            let changes = try await client.recordSignals(interface: ReachdClient.monitorInterface, member: "ReachabilityChanged")
            defer { changes.stop() }
            let monitor = try await client.managerForDomain(namespaces.dnsName)
            // The monitor is made at once (Status -1); dnsmasq answers with the
            // peer's address, which is on the link, and that is its first answer.
            try await eventually("the first answer for \(namespaces.dnsName)") {
                try await client.answer(of: monitor) == .reachableDirect
            }
            #expect(try await client.host(of: monitor) == namespaces.dnsName)
            #expect(namespaces.dnsQueries.contains("query[A] \(namespaces.dnsName) from \(namespaces.clientAddress)"),
                    "dnsmasq was asked; its log:\n\(namespaces.dnsQueries)")

            // The link goes down: its routes go, and with them the way to the DNS server.
            try await namespaces.inClient("link", "set", namespaces.clientInterface, "down")
            try await eventually("the monitor for \(namespaces.dnsName) says not reachable: \(changes.reachabilityChanges(of: monitor))") {
                changes.reachabilityChanges(of: monitor).last == .notReachable
            }
            #expect(changes.reachabilityChanges(of: monitor) == [.reachableDirect, .notReachable])
            #expect(try await client.answer(of: monitor) == .notReachable)
            #expect(try await client.checkHost(namespaces.dnsName) == .notReachable)
        }
    }

    @Test func nameTheDNSServerDoesNotKnowIsNotReachable() async throws {
        try await withReachdInNamespace { namespaces, client in
            let name = "nowhere.reachd.test"
            let monitor = try await client.managerForDomain(name)
            try await eventually("the first answer for \(name)") {
                try await client.answer(of: monitor) == .notReachable
            }
            #expect(try await client.checkHost(name) == .notReachable)
            // The DNS server was asked and said no (no wall-clock bound: shared machines are noisy).
            #expect(namespaces.dnsQueries.contains("query[A] \(name)"), "dnsmasq was asked; its log:\n\(namespaces.dnsQueries)")
        }
    }

    @Test func removingAndRestoringTheDefaultRouteFlipsEachMonitorOnce() async throws {
        try await withReachdInNamespace { namespaces, client in
            let changes = try await client.recordSignals(interface: ReachdClient.monitorInterface, member: "ReachabilityChanged")
            defer { changes.stop() }
            var made: [ObjectPath] = []
            for address in Self.behindTheGateway { made.append(try await client.managerForAddress(address)) }
            let behind = made
            // Monitors the default route does not concern: they must stay silent.
            let steady = [
                try await client.managerForAddress(namespaces.peerAddress),
                try await client.managerForAddress(namespaces.clientAddress),
                try await client.managerForAddress("127.0.0.1"),
                try await client.managerForDomain(namespaces.dnsName),
            ]
            for monitor in behind { #expect(try await client.answer(of: monitor) == .reachable) }
            // The name's monitor gets its first answer as a signal; it is no change of the route's.
            let named = steady.last!
            try await eventually("the first answer for \(namespaces.dnsName)") {
                changes.reachabilityChanges(of: named) == [.reachableDirect]
            }
            changes.forget(named)
            let history = { (behind + steady).map { "\($0): \(changes.reachabilityChanges(of: $0))" }.joined(separator: "\n") }

            try await namespaces.deleteDefaultRoute()
            try await eventually("every monitor behind the gateway says not reachable:\n\(history())") {
                behind.allSatisfy { changes.reachabilityChanges(of: $0).last == .notReachable }
            }
            try await Task.sleep(for: .seconds(1))  // room for a second, wrong signal
            for monitor in behind {
                #expect(changes.reachabilityChanges(of: monitor) == [.notReachable], "\(monitor)")
                #expect(try await client.answer(of: monitor) == .notReachable)
            }
            for monitor in steady { #expect(changes.reachabilityChanges(of: monitor) == [], "\(monitor)") }

            try await namespaces.restoreDefaultRoute()
            try await eventually("every monitor behind the gateway is reachable again:\n\(history())") {
                behind.allSatisfy { changes.reachabilityChanges(of: $0).count == 2 }
            }
            try await Task.sleep(for: .seconds(1))
            for monitor in behind {
                #expect(changes.reachabilityChanges(of: monitor) == [.notReachable, .reachable], "\(monitor)")
                #expect(try await client.answer(of: monitor) == .reachable)
            }
            for monitor in steady { #expect(changes.reachabilityChanges(of: monitor) == [], "\(monitor)") }
        }
    }
}
