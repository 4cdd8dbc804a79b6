import ReachdKit

/// What `reachctl wait` waits for, judged on one update from reachd. Pure: the same
/// update gives the same verdict.
struct WaitCondition: Equatable {
    enum Level: Equatable {
        case link, routable, dns, online

        /// The names `--level` takes, as completions offer them (the aliases left out).
        static let names = ["link", "routable", "dns", "online"]

        init?(_ text: String) {
            switch text.lowercased() {
            case "link": self = .link
            case "routable": self = .routable
            case "dns": self = .dns
            case "online", "internet", "full": self = .online
            default: return nil
            }
        }

        var networkLevel: NetworkLevel {
            switch self {
            case .link: .link
            case .routable: .routable
            case .dns: .dns
            case .online: .online
            }
        }
    }

    var level: Level
    var ipv4 = false
    var ipv6 = false
    /// `-i` conditions: when given, they replace the global level.
    var interfaces: [InterfaceCondition] = []
    /// `--ignore` globs: matching links never count.
    var ignore: [String] = []
    /// `--any`: one `-i` condition suffices (default: all).
    var any = false

    /// Whether `update` satisfies the condition. Unknown never does.
    func isSatisfied(by update: ReachabilityUpdate) -> Bool {
        var path = NetworkPath(update)
        guard path.level != .unknown else { return false }
        path.availableInterfaces.removeAll { matchesAny($0.name, ignore) }
        if ipv4 && !path.supportsIPv4 { return false }
        if ipv6 && !path.supportsIPv6 { return false }
        if !interfaces.isEmpty {
            let results = interfaces.map { $0.isSatisfied(by: path, networkdOnline: update.networkdLinkOnlineStates) }
            return any ? results.contains(true) : !results.contains(false)
        }
        if level == .link && !ignore.isEmpty {
            // Judged here: reachd's Level does not know which links the caller ignores.
            return path.availableInterfaces.contains { $0.type != .vpn }
        }
        return path.level >= level.networkLevel
    }

    /// `online` needs a connectivity check that runs; where none does, and that is provable, it
    /// can never hold (`ReachabilityUpdate.onlineCanHold`, the client library's rule). Before any
    /// source answered, or while a check runs that has not said `full` yet (ConnMan `ready`,
    /// NetworkManager's or reachd's own check pending), it waits. An interface's `online` also
    /// holds by systemd-networkd's word while it is the source.
    func canBeSatisfied(by update: ReachabilityUpdate) -> Bool {
        guard asksOnline(update) else { return true }
        return update.onlineCanHold
    }

    private func asksOnline(_ update: ReachabilityUpdate) -> Bool {
        interfaces.isEmpty ? level == .online
            : interfaces.contains { $0.level == .online && update.backend != .systemdNetworkd }
    }

    /// What a wait for `online` that has not ended is waiting for, in words: the check or checks
    /// that may still say `full`, and what each says now. Nil where `online` is not asked or holds.
    func awaitedCheck(_ update: ReachabilityUpdate) -> String? {
        guard asksOnline(update), NetworkPath(update).level != .online else { return nil }
        guard update.status != .unknown else { return "waiting for reachd's first answer (no source has answered yet)" }
        guard let runners = update.connectivityCheckRunners else { return nil }
        let path = update.isReachable ? "" : "a path, then "
        guard !runners.isEmpty else {
            // Only the kernel answers (a daemon that does not check ends the wait with exit 5).
            if let socket = update.systemBusAwaited {
                return "waiting for the system bus (nothing at \(socket) yet), then a network daemon with a connectivity "
                    + "check (NetworkManager, ConnMan); reachd's own check is off ([connectivity] uri=)"
            }
            return "waiting for a network daemon with a connectivity check (NetworkManager, ConnMan) to start: "
                + "none runs here yet, and reachd's own check is off ([connectivity] uri=)"
        }
        let checks = runners.map { runner in
            switch runner {
            case .networkManager:
                return "NetworkManager's check (it says \(update.connectivity.rawValue))"
            case .connman:
                return "ConnMan's online check (ConnMan says \(update.connmanState ?? "nothing yet"))"
            case .reachd:
                if update.connectivityCheckPending { return "reachd's own check (its first verdict over this path)" }
                if update.connectivityCheckSource == "reachd" { return "reachd's own check (it says \(update.connectivity.rawValue))" }
                return "reachd's own check"
            }
        }
        return "waiting for " + path + checks.joined(separator: " or ")
    }

    /// Why the network's condition does not hold, for the line printed on failure. (A host's
    /// cause is `HostCause`'s.)
    func reason(_ update: ReachabilityUpdate) -> String {
        let path = NetworkPath(update)
        if !interfaces.isEmpty {
            let online = update.networkdLinkOnlineStates
            return interfaces.filter { !$0.isSatisfied(by: path, networkdOnline: online) }
                .map { $0.reason(path, networkdOnline: online) }.joined(separator: "; ")
        }
        var text = "level \(level.networkLevel.rawValue) not reached"
        let interface = update.interface.isEmpty ? "" : " on \(update.interface)"
        if path.unsatisfiedReason != .none {
            text += " (\(path.unsatisfiedReason.rawValue)\(interface))"
        } else {
            text += " (level is \(path.level.rawValue))"
        }
        if let awaited = awaitedCheck(update) { text += "; " + awaited }
        return text
    }
}
