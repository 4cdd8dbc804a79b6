import ReachdDBus
import ReachdCore

/// `CheckConnectivity()`: asks NetworkManager to run its connectivity check now
/// (after a portal login page was closed, say) and answers the result, at most one
/// check every 10 s for all callers together, whoever they are; callers in between share
/// the pending or last answer (a failure too: a second caller must not start a second check
/// right after one failed, or many users could run one each). Where
/// NetworkManager's own check is off (or NetworkManager absent) and reachd has a check URI,
/// reachd's own check runs instead. With neither there is no check to run: `NotSupported`.
package actor ConnectivityChecker {
    private static let interval: Duration = .seconds(10)
    private var bus: Connection?
    /// NetworkManager's check is enabled and available.
    private var networkManagerChecks = false
    private var ownCheck: ReachdConnectivityCheck?
    private var lastCall: ContinuousClock.Instant?
    private var lastResult: Result<String, DBusError>?
    private var pending: Task<Result<String, DBusError>, Never>?

    /// The system bus NetworkManager is on while it is there, nil otherwise.
    func attach(_ bus: Connection?, checking: Bool = false) {
        self.bus = bus
        networkManagerChecks = bus != nil && checking
        if bus == nil { lastResult = nil; lastCall = nil }
    }

    /// reachd's own check, configured with a URI.
    func useOwnCheck(_ check: ReachdConnectivityCheck) {
        ownCheck = check
    }

    package func check() async throws(DBusError) -> String {
        if let pending { return try await pending.value.get() }
        if let lastCall, let lastResult, ContinuousClock.now - lastCall < Self.interval { return try lastResult.get() }
        if let ownCheck, !networkManagerChecks {
            let call = Task { () -> Result<String, DBusError> in .success(await ownCheck.checkNow().rawValue) }
            return try await share(call)
        }
        guard let bus else {
            throw DBusError.notSupported("NetworkManager is not running here and reachd has no check URI, so there is no connectivity check to run")
        }
        let call = Task { () -> Result<String, DBusError> in
            do {
                let reply = try await bus.call(destination: NetworkManagerNames.bus, path: NetworkManagerNames.managerPath,
                                               interface: NetworkManagerNames.managerInterface, member: "CheckConnectivity",
                                               timeout: .seconds(30))
                guard case .uint32(let raw)? = reply.first else {
                    return .failure(DBusError.failed("NetworkManager answered CheckConnectivity with \(reply)"))
                }
                return .success(Connectivity(NMConnectivityState(rawValue: raw)).rawValue)
            } catch let error as DBusError {
                return .failure(error)
            } catch {
                return .failure(DBusError.failed("\(error)"))
            }
        }
        return try await share(call)
    }

    private func share(_ call: Task<Result<String, DBusError>, Never>) async throws(DBusError) -> String {
        pending = call
        lastCall = .now
        let result = await call.value
        pending = nil
        lastResult = result
        return try result.get()
    }
}
