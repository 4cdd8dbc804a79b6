import ReachdDBus
import ReachdTestSupport
import Testing

/// reachd inside the client namespace of fresh `nm-netns` namespaces, its
/// session bus a private one in the test's namespace (a unix socket path,
/// reachable from any network namespace), and a client connection to it.
/// NetworkManager runs in the namespace unless `withNetworkManager` is false
/// (then reachd finds the system bus without it and follows the kernel).
func withReachdInNamespace<T>(
    withNetworkManager: Bool = true, arguments: [String] = [],
    _ body: (NetworkNamespaces, ReachdClient) async throws -> T
) async throws -> T {
    try await withNetworkNamespaces { namespaces in
        if !withNetworkManager { try await namespaces.harness("kill-nm") }
        return try await withPrivateBus { session in
            try await withReachd(session: session, systemBus: namespaces.systemBusAddress,
                                 network: .named(namespaces.clientNamespace), arguments: arguments) { _ in
                // The client reaches reachd from its namespace, where reachd answers it.
                let proxy = try await NamespaceProxy(to: session, inNamespace: namespaces.clientNamespace)
                defer { proxy.stop() }
                return try await withClient(session, at: proxy.address) { client in try await body(namespaces, client) }
            }
        }
    }
}

/// reachd in the tests' own network namespace (Scripts/test's) with no system bus at all,
/// for behaviour that involves no network: it is asked only about address
/// literals, so it looks up routes (which sends nothing) and never resolves.
func withLocalReachd<T>(arguments: [String] = [], _ body: (PrivateBus) async throws -> T) async throws -> T {
    try await withPrivateBus { session in
        try await withReachd(session: session, systemBus: absentSystemBusAddress(), network: .testNamespace,
                             arguments: arguments) { _ in
            try await body(session)
        }
    }
}

extension Array where Element == Message {
    /// The values a property took in these `PropertiesChanged` signals, in order.
    func changedValues(of property: String) -> [DBusValue] {
        compactMap { message -> DBusValue? in
            guard message.member == "PropertiesChanged", message.body.count >= 2,
                  case .dictionary(_, _, let entries) = message.body[1] else { return nil }
            return entries.first { $0.key.stringValue == property }?.value.unwrappingVariant
        }
    }
}
