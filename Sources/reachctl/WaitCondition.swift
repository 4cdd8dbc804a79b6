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

    /// `online` needs a connectivity check that runs; without one it can never hold. A check
    /// that is on but has not answered over this path yet (reachd's own, just started) runs:
    /// its verdict is waited for. An interface's `online` also holds by systemd-networkd's word
    /// while it is the source.
    func canBeSatisfied(by update: ReachabilityUpdate) -> Bool {
        let asksOnline = interfaces.isEmpty ? level == .online
            : interfaces.contains { $0.level == .online && update.backend != .systemdNetworkd }
        guard asksOnline, update.interfaceVersion >= 2, update.status != .unknown else { return true }
        return update.path.connectivityChecked || update.connectivityCheckPending
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
        return text
    }
}
