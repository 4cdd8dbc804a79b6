import ReachdDBus
import Logging
import ReachdContract
import Synchronization

/// Who may ask reachd anything (contract §6.3): host apps, and Flatpak apps that share the
/// host's network. A Flatpak app without `--share=network` gets `NotAllowed` on every method
/// and property read, as xdg-desktop-portal's NetworkMonitor answers it: reachd's answers
/// would describe a network the app cannot use, and a name lookup on its behalf would be a
/// way out of the sandbox.
///
/// Each caller is identified once, on its first call, and the verdict kept until it leaves
/// the bus (`forget`); later calls cost one dictionary lookup, so host apps' `GetStatus`
/// throughput does not change. Calls that arrive while the caller is identified wait for it.
///
/// The identification also gives the caller's user, which a system instance's limits are
/// counted by (`account(of:)`): one user may open many connections, so on the system bus a
/// connection is not a fair unit (contract 4, §1.2). And it gives the caller's network
/// namespace where reachd may read it (the caller's own user): a caller in another namespace
/// gets `OtherNetworkNamespace` from the methods that answer for a host or a path, since
/// reachd's routes are not its routes (contract 4, §2.1). Its properties stay readable.
final class CallerPolicy: Sendable {
    /// What limits and fair queues count a caller as.
    enum Accounts: Sendable {
        /// Each connection is an account of its own (the session bus: one user).
        case perConnection
        /// Every connection of one Unix user is one account (the system bus).
        case perUser
    }

    private enum Verdict: Sendable {
        /// `otherNamespace`: the caller's network namespace, known to differ from reachd's.
        case allowed(userID: UInt32?, otherNamespace: OtherNamespace?)
        case refused(DBusError)
    }

    /// A caller's network namespace that is not reachd's: its number where reachd may read it
    /// (the caller's own user), else only the fact (another user's process: `/proc/PID/net`
    /// tells, `/proc/PID/ns/net` is not readable).
    private enum OtherNamespace: Sendable, CustomStringConvertible {
        case known(NetworkNamespace)
        case unnumbered

        var description: String {
            switch self {
            case .known(let namespace): "network namespace \(namespace)"
            case .unnumbered: "a network namespace of its own (another user's process, whose namespace's number reachd may not read)"
            }
        }
    }

    private struct State {
        var verdicts: [BusName: Verdict] = [:]
        /// Callers being identified now; a name removed from here meanwhile has left the bus.
        var identifying: [BusName: Task<Verdict, Never>] = [:]
    }

    private let state = Mutex(State())
    private let logger: Logger
    private let accounts: Accounts
    private let networkNamespace: NetworkNamespace?
    private let monitorAccount: @Sendable (UInt64) -> String?

    /// The sentence a refused app and its user see.
    static let noNetwork = "this application has no network access (Flatpak --share=network missing)"

    /// `networkNamespace`: reachd's own (nil where it cannot be read: nothing is compared).
    /// `monitorAccount`: whose a host monitor is, by its number (on the system bus only its
    /// user may read it: which hosts a user watches is that user's business).
    init(logger: Logger, accounts: Accounts = .perConnection, networkNamespace: NetworkNamespace? = nil,
         monitorAccount: @escaping @Sendable (UInt64) -> String? = { _ in nil }) {
        self.logger = logger
        self.accounts = accounts
        self.networkNamespace = networkNamespace
        self.monitorAccount = monitorAccount
    }

    /// The account `caller`'s monitors and lookups count against: its connection, or on the
    /// system bus its user (`uid N`). A caller not (or no longer) known counts as itself.
    func account(of caller: BusName) -> String {
        guard accounts == .perUser,
              case .allowed(let userID?, _)? = state.withLock({ $0.verdicts[caller] }) else { return caller.rawValue }
        return "uid \(userID)"
    }

    /// The connection's admission hook (`Connection.admitCalls(with:)`).
    func admission(for call: Message, on connection: isolated Connection) -> CallAdmission {
        guard let sender = call.sender else {
            return .refuse(ReachdContract.notAllowed("the call has no sender, so reachd cannot tell who asks"))
        }
        enum Known { case verdict(Verdict), identifying(Task<Verdict, Never>) }
        let known = state.withLock { state -> Known in
            if let verdict = state.verdicts[sender] { return .verdict(verdict) }
            if let task = state.identifying[sender] { return .identifying(task) }
            let task = Task { await self.identify(sender, on: connection) }
            state.identifying[sender] = task
            return .identifying(task)
        }
        switch known {
        case .verdict(let verdict):
            return refusal(of: call, by: verdict).map(CallAdmission.refuse) ?? .admit
        case .identifying(let task):
            return .decideLater { [self] in refusal(of: call, by: await task.value) }
        }
    }

    /// Methods whose answer is about a host or a path, so only for reachd's own namespace.
    private static let namespaceBound: Set<MemberName> = [
        ReachdContract.checkHost, ReachdContract.managerForDomain,
        ReachdContract.managerForAddress, ReachdContract.getPath,
    ]

    /// The error `call` gets under `verdict`, nil to answer it.
    private func refusal(of call: Message, by verdict: Verdict) -> DBusError? {
        switch verdict {
        case .refused(let error):
            return error
        case .allowed(_, let other?) where call.interface == ReachdContract.interface
                && call.member.map(Self.namespaceBound.contains) == true:
            return ReachdContract.otherNetworkNamespace(
                "this program runs in \(other), reachd in \(networkNamespace.map { "\($0)" } ?? "another"): "
                + "reachd's routes and interfaces are not this program's, so its answer would be another namespace's. "
                + "Use a reachd started in this namespace, or the ReachdKit library's (and reachctl's) in-process "
                + "mode: REACHD_SERVICE=in-process")
        case .allowed:
            guard accounts == .perUser, let sender = call.sender, let id = Self.monitorID(call.path),
                  let owner = monitorAccount(id), owner != account(of: sender) else { return nil }
            return ReachdContract.notOwner(Self.notOwnersMonitor(id, member: call.member))
        }
    }

    /// What another user's call on monitor `id` is told: what was refused, by its member.
    static func notOwnersMonitor(_ id: UInt64, member: MemberName?) -> String {
        if member == ReachdContract.release {
            return "host monitor \(id) belongs to another user: Release is refused; only the connection that made a monitor may release it"
        }
        return "host monitor \(id) belongs to another user: on the system bus only its own user may read a monitor"
    }

    /// The number of the host monitor a call's path names, nil for any other path.
    private static func monitorID(_ path: ObjectPath?) -> UInt64? {
        let prefix = ReachdContract.monitorsPath.rawValue + "/"
        guard let path = path?.rawValue, path.hasPrefix(prefix) else { return nil }
        return UInt64(path.dropFirst(prefix.count))
    }

    /// The sentence a caller in a PID namespace reachd cannot see into gets.
    static let notVisible = "this program runs in a PID namespace that reachd's cannot see into (the bus gives its process ID "
        + "as 0), so reachd cannot tell which network namespace it is in, nor whether it is a sandboxed app, and its answers "
        + "could be another namespace's. Use a reachd started in this program's namespaces, or the ReachdKit library's (and "
        + "reachctl's) in-process mode: REACHD_SERVICE=in-process"

    /// The sentence a Flatpak app of another user sees: reachd may not read its sandbox's
    /// permissions, so it cannot tell that the app shares the network, and fails closed.
    static func unproven(_ applicationID: String) -> String {
        "this Flatpak application (\(applicationID)) runs as another user, so reachd cannot read whether it has network access (Flatpak --share=network); it is treated as having none. Ask the reachd on its own session bus instead"
    }

    /// `name` left the bus: its verdict goes (unique names are never reused).
    func forget(_ name: BusName) {
        state.withLock { state in
            state.verdicts[name] = nil
            state.identifying[name] = nil
        }
    }

    private func identify(_ sender: BusName, on connection: Connection) async -> Verdict {
        let verdict: Verdict
        let keep: Bool
        do {
            let reply = try await connection.call(
                destination: .bus, path: "/org/freedesktop/DBus", interface: .bus,
                member: "GetConnectionCredentials", body: [.string(sender.rawValue)])
            let credentials = ProcessCredentials(reply.first)
            let sandbox = try CallerSandbox.of(credentials)
            // Its namespace's number where reachd may read it (the caller's own user); another
            // user's process is told apart all the same (contract 7, section 3).
            let processID = try credentials.livingProcessID()
            let callersNamespace = NetworkNamespace.ofProcess(processID)
            // Another user's process: /proc/PID/ns/net needs ptrace rights, /proc/PID/net does not.
            let sharesReachds = callersNamespace == nil ? NetworkNamespace.processSharesThisOne(processID) : nil
            try credentials.confirmSameProcess(processID)
            let other: OtherNamespace?
            if let callersNamespace, let networkNamespace, callersNamespace != networkNamespace {
                other = .known(callersNamespace)
            } else if sharesReachds == false {
                other = .unnumbered
            } else {
                other = nil
            }
            if let other { logger.debug("\(sender) is in \(other), not reachd's") }
            switch sandbox {
            case .host:
                verdict = .allowed(userID: credentials.userID, otherNamespace: other)
            case .flatpak(let info) where info.hasNetwork:
                logger.debug("\(sender) is Flatpak app \(info.applicationName ?? "(no name)") with network access")
                verdict = .allowed(userID: credentials.userID, otherNamespace: other)
            case .flatpak(let info):
                logger.info("refusing \(sender), Flatpak app \(info.applicationName ?? "(no name)"): it has no network access")
                verdict = .refused(ReachdContract.notAllowed(Self.noNetwork))
            case .flatpakUnproven(let applicationID):
                logger.info("refusing \(sender), Flatpak app \(applicationID) of another user: its network permission cannot be read")
                verdict = .refused(ReachdContract.notAllowed(Self.unproven(applicationID)))
            }
            keep = true
        } catch let failure as CallerIdentificationFailure where failure.isNotVisible {
            // Kept: a connection's process does not change namespaces. Not NotAllowed, which says
            // "a sandbox without network" and so is final for a client: this caller may well have
            // the network, and the library and reachctl ask another provider (in-process).
            logger.info("refusing \(sender): \(failure), so reachd cannot tell which network namespace it is in")
            verdict = .refused(ReachdContract.unknownNetworkNamespace(Self.notVisible))
            keep = true
        } catch {
            // Not kept: the next call tries again (the caller has most likely left already).
            logger.notice("could not tell whether \(sender) is a sandboxed app, so its call is refused: \(error)")
            verdict = .refused(ReachdContract.notAllowed("reachd could not tell whether this caller may see the network: \(error)"))
            keep = false
        }
        state.withLock { state in
            guard state.identifying.removeValue(forKey: sender) != nil else { return }
            if keep { state.verdicts[sender] = verdict }
        }
        return verdict
    }
}
