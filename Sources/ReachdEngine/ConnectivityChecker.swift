import ReachdDBus
import ReachdCore

/// `CheckConnectivity()`: runs the connectivity check that exists here now (after a portal
/// login page was closed, say) and answers the result, never something the `Connectivity`
/// property contradicts (contract 6, §2):
///
/// | here | answer |
/// |---|---|
/// | NetworkManager's check is enabled and available | NetworkManager's `CheckConnectivity`, in reachd's words; its errors summarised (`RelayedError`) |
/// | ConnMan is the source and says `online` | its standing verdict (`full`): ConnMan 1.41 has no method that re-runs its check |
/// | reachd has a check URI | reachd's own check, run now |
/// | NetworkManager runs, not checking | its standing word (its `CheckConnectivity`), which `Connectivity` follows |
/// | ConnMan is the source otherwise | its standing verdict, as `Connectivity` says it |
/// | none of these | `NotSupported`, saying of every source why it does not check |
///
/// At most one check every 10 s for all callers together, whoever they are; callers in between
/// share the pending or last answer (a failure too: a second caller must not start a second
/// check right after one failed, or many users could run one each). A standing verdict costs
/// nothing and is read afresh on every call.
package actor ConnectivityChecker {
    private static let interval: Duration = .seconds(10)
    /// The value published now: which source decides, and what it says.
    private let current: @Sendable () -> PublishedReachability
    private var bus: Connection?
    /// NetworkManager's check is enabled and available.
    private var networkManagerChecks = false
    private var ownCheck: ReachdConnectivityCheck?
    private var lastCall: ContinuousClock.Instant?
    private var lastResult: Result<String, DBusError>?
    private var pending: Task<Result<String, DBusError>, Never>?

    package init(current: @escaping @Sendable () -> PublishedReachability = { .unknown }) {
        self.current = current
    }

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
        let value = current()
        let connman = bus == nil && value.backend == .connman
        // ConnMan's `online` decides Connectivity even with reachd's own check configured.
        if connman, value.details.checkSource == "connman" { return value.connectivity.rawValue }
        if let lastCall, let lastResult, ContinuousClock.now - lastCall < Self.interval { return try lastResult.get() }
        // NetworkManager's check where it checks; where it does not, and reachd has no URI of
        // its own, NetworkManager's standing word (Connectivity follows it).
        if let bus, networkManagerChecks || ownCheck == nil {
            return try await share(Task { await Self.askNetworkManager(on: bus) })
        }
        if let ownCheck {
            return try await share(Task { .success(await ownCheck.checkNow().rawValue) })
        }
        if connman { return value.connectivity.rawValue }
        throw DBusError.notSupported(Self.noCheckSentence(backend: value.backend))
    }

    /// Why no check runs, naming every source (NetworkManager absent): NotSupported's sentence.
    static func noCheckSentence(backend: Backend?) -> String {
        let networkd = backend == .systemdNetworkd ? "systemd-networkd (the source) does not check connectivity"
            : "systemd-networkd does not check connectivity, and the kernel's routes (the source) say nothing of it"
        return "no connectivity check runs here: NetworkManager and ConnMan do not run here, \(networkd), "
            + "and reachd has no check URI (set [connectivity] uri=http://... in reachd.conf)"
    }

    private static func askNetworkManager(on bus: Connection) async -> Result<String, DBusError> {
        do {
            let reply = try await bus.call(destination: NetworkManagerNames.bus, path: NetworkManagerNames.managerPath,
                                           interface: NetworkManagerNames.managerInterface, member: "CheckConnectivity",
                                           timeout: .seconds(30))
            guard case .uint32(let raw)? = reply.first else {
                return .failure(.failed("NetworkManager answered the check with no connectivity state"))
            }
            return .success(Connectivity(NMConnectivityState(rawValue: raw)).rawValue)
        } catch let error as DBusError {
            return .failure(RelayedError(daemon: "NetworkManager", action: "the check", error: error).dbusError)
        } catch {
            return .failure(.failed("NetworkManager could not be asked to run the check"))
        }
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
