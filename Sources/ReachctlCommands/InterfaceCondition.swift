import Glibc
import ReachdKit

/// `reachctl wait -i IF[:LEVEL]`: one interface's condition, judged from reachd's
/// `AvailableInterfaces` (links that could carry a path and are up with carrier).
struct InterfaceCondition: Equatable {
    enum Level: String, Equatable {
        /// Listed: up, with carrier, able to carry a path.
        case link
        /// Listed with an Internet path of its own.
        case routable
        /// Routable, carrying the deciding path, while the network is online (NetworkManager's
        /// check ran and found the Internet; it checks the primary device's path). Where
        /// systemd-networkd has an `OnlineState` of the link's own, that state is `online`.
        case online
    }

    var name: String
    var level: Level

    /// Parses `IF` or `IF:LEVEL`; `defaultLevel` applies without `:LEVEL`.
    init?(_ text: String, defaultLevel: Level) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let name = parts.first, !name.isEmpty else { return nil }
        self.name = name
        if parts.count == 2 {
            guard let level = Level(rawValue: parts[1]) else { return nil }
            self.level = level
        } else {
            self.level = defaultLevel
        }
    }

    /// `networkdOnline`: systemd-networkd's `OnlineState` of each link it has one for.
    func isSatisfied(by path: NetworkPath, networkdOnline: [String: String] = [:]) -> Bool {
        if level == .online, let state = networkdOnline[name] { return state == "online" }
        guard let interface = path.availableInterfaces.first(where: { $0.name == name }) else { return false }
        switch level {
        case .link: return true
        case .routable: return interface.hasInternetPath
        case .online:
            // The deciding path's interface is listed first.
            return interface.hasInternetPath && path.level == .online && path.availableInterfaces.first?.name == name
        }
    }

    /// `link`: the kernel's word on a link reachd does not list (`LocalLink.state`), so that an
    /// up link reachd does not count is not called absent.
    func reason(_ path: NetworkPath, networkdOnline: [String: String] = [:],
                link: (String) -> LocalLink = LocalLink.state(of:)) -> String {
        if level == .online, let state = networkdOnline[name] { return "interface \(name) is \(state) (systemd-networkd)" }
        guard let interface = path.availableInterfaces.first(where: { $0.name == name }) else {
            switch link(name) {
            case .absent: return "interface \(name) is not present"
            case .down: return "interface \(name) is down"
            case .noCarrier: return "interface \(name) is up without carrier"
            case .up:
                return "interface \(name) is up, but reachd does not count it as a way out: a veth, bridge or tap "
                    + "counts only while a default route leaves over it (a bridge's port and loopback never do)"
            }
        }
        return interface.hasInternetPath ? "interface \(name) ready" : "interface \(name) has no Internet path"
    }
}

/// `--ignore GLOB`: links whose names match never count.
func matchesAny(_ name: String, _ globs: [String]) -> Bool {
    globs.contains { fnmatch($0, name, 0) == 0 }
}
