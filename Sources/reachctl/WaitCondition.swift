import Reachability

/// What `reachctl wait` waits for, judged on one update from reachd. Pure: the same
/// update gives the same verdict.
struct WaitCondition: Equatable {
    enum Level: Equatable {
        case link, routable, dns, online

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

    /// Whether `update` satisfies the condition. Unknown never does.
    func isSatisfied(by update: ReachabilityUpdate, forHost: Bool) -> Bool {
        if forHost { return update.isReachable }
        let path = NetworkPath(update)
        guard path.level != .unknown, path.level >= level.networkLevel else { return false }
        if ipv4 && !path.supportsIPv4 { return false }
        if ipv6 && !path.supportsIPv6 { return false }
        return true
    }

    /// `online` needs a connectivity check that runs; without one it can never hold.
    func canBeSatisfied(by update: ReachabilityUpdate) -> Bool {
        guard level == .online, update.interfaceVersion >= 2, update.status != .unknown else { return true }
        return update.path.connectivityChecked
    }

    /// Why the condition does not hold, for the line printed on failure.
    func reason(_ update: ReachabilityUpdate, forHost: Bool) -> String {
        let path = NetworkPath(update)
        var text = "\(forHost ? "host" : "level \(level.networkLevel.rawValue)") not reached"
        let interface = update.interface.isEmpty ? "" : " on \(update.interface)"
        if path.unsatisfiedReason != .none {
            text += " (\(path.unsatisfiedReason.rawValue)\(interface))"
        } else if !forHost {
            text += " (level is \(path.level.rawValue))"
        }
        return text
    }
}
