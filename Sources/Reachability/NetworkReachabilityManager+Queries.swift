internal import DBus
internal import ReachabilityContract

extension NetworkReachabilityManager {
    /// Asks the service once, without monitoring: `GetAll` on the default route (starting reachd by
    /// D-Bus activation if needed), or for a host a monitor made, read and released at once.
    ///
    /// ```swift
    /// let now = try await NetworkReachabilityManager.shared.fetchUpdate()
    /// print(now.status, now.flags)
    /// ```
    public func fetchUpdate() async throws(ReachabilityError) -> ReachabilityUpdate {
        try await withServiceConnection(sessionBusAddress) { bus in
            var update = ReachabilityUpdate.unknown
            guard let request = target.monitorRequest else {
                let reply = try await bus.call(
                    destination: ReachabilityContract.busName, path: ReachabilityContract.objectPath, interface: .properties,
                    member: "GetAll", body: [.string(ReachabilityContract.interface.rawValue)])
                update.apply(ReachabilityUpdate.properties(in: reply.first ?? .structure([])))
                return update
            }
            let made = try await bus.call(
                .methodCall(destination: ReachabilityContract.busName, path: ReachabilityContract.objectPath,
                            interface: ReachabilityContract.interface, member: request.method, body: [.string(request.host)]),
                timeout: .seconds(25))
            guard case .objectPath(let path)? = made.body.first, let owner = made.sender else {
                throw DBusError.failed("\(request.method) answered \(made.body) instead of an object path")
            }
            do {
                let reply = try await bus.call(
                    destination: owner, path: path, interface: .properties, member: "GetAll",
                    body: [.string(ReachabilityContract.monitorInterface.rawValue)])
                update.apply(ReachabilityUpdate.properties(in: reply.first ?? .structure([])))
            } catch {
                _ = try? await bus.call(destination: owner, path: path, interface: ReachabilityContract.monitorInterface, member: ReachabilityContract.release)
                throw error
            }
            _ = try await bus.call(destination: owner, path: path, interface: ReachabilityContract.monitorInterface, member: ReachabilityContract.release)
            return update
        }
    }

    /// One answer for a DNS name or an address literal (`CheckHost`); no monitor is kept.
    ///
    /// ```swift
    /// let (status, flags) = try await NetworkReachabilityManager.checkHost("example.org")
    /// ```
    public static func checkHost(
        _ host: String, sessionBusAddress: String? = nil
    ) async throws(ReachabilityError) -> (status: NetworkReachabilityStatus, flags: ReachabilityFlags) {
        try await withServiceConnection(sessionBusAddress) { bus in
            let reply = try await bus.call(
                destination: ReachabilityContract.busName, path: ReachabilityContract.objectPath, interface: ReachabilityContract.interface,
                member: ReachabilityContract.checkHost, body: [.string(host)])
            guard reply.count == 2, case .int32(let status) = reply[0], case .uint32(let flags) = reply[1] else {
                throw DBusError.failed("CheckHost answered \(reply) instead of (i, u)")
            }
            return (NetworkReachabilityStatus(rawValue: status) ?? .unknown, ReachabilityFlags(rawValue: flags))
        }
    }
}

/// Opens a connection for one query, runs `body`, and closes it on every path out.
private func withServiceConnection<T: Sendable>(
    _ address: String?, _ body: (Connection) async throws -> T
) async throws(ReachabilityError) -> T {
    let bus: Connection
    do {
        bus = if let address { try await Connection.open(address: address) } else { try await Connection.session() }
    } catch {
        throw ReachabilityError(error)
    }
    do {
        let result = try await body(bus)
        await bus.close()
        return result
    } catch {
        await bus.close()
        throw ReachabilityError(error)
    }
}
