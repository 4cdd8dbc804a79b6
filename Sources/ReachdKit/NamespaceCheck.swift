internal import ReachdDBus
internal import ReachdContract

/// Whether a reachd answers for this process's network namespace (contract 4, §2.1): its
/// `NetworkNamespace` against this process's `/proc/self/ns/net`. A reachd in another namespace
/// (the user's bus reached from a container through its path socket) describes another
/// machine's network, and is never used.
enum NamespaceCheck {
    struct Mismatch: Sendable {
        var reachd: NetworkNamespace
        var ours: NetworkNamespace
    }

    /// The mismatch when `owner`'s reachd answers for another namespace; nil when it answers
    /// for ours, when it does not say (an older reachd), or when ours cannot be read (no /proc).
    static func foreignNamespace(of owner: BusName, on bus: Connection, timeout: Duration) async throws -> Mismatch? {
        guard let ours = NetworkNamespace.ofThisProcess else { return nil }
        let reply: [DBusValue]
        do {
            reply = try await bus.call(destination: owner, path: ReachdContract.objectPath, interface: .properties,
                                       member: "Get", body: [.string(ReachdContract.interface.rawValue),
                                                             .string(ReachdContract.networkNamespace)], timeout: timeout)
        } catch let error as DBusError where error.name.rawValue == "org.freedesktop.DBus.Error.InvalidArgs"
                    || error.name.rawValue == "org.freedesktop.DBus.Error.UnknownProperty" {
            return nil  // a reachd older than InterfaceVersion 4
        }
        guard case .uint64(let inode)? = reply.first?.unwrappingVariant, inode != 0 else { return nil }
        let theirs = NetworkNamespace(rawValue: inode)
        return theirs == ours ? nil : Mismatch(reachd: theirs, ours: ours)
    }

    /// What `lastError` says of such a reachd.
    static func error(_ mismatch: Mismatch, provider: ReachabilityProvider) -> ReachabilityError {
        ReachabilityError(name: ReachabilityError.otherNetworkNamespace, message:
            "\(provider) answers for network namespace \(mismatch.reachd), this process is in \(mismatch.ours): "
            + "its answers would be another namespace's, so it is not used")
    }
}
