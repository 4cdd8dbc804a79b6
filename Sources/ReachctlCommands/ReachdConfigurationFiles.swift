import Glibc

/// Where reachd reads reachd.conf, for the sentences that send a person there (exit 5's, a
/// reachd that refused its configuration). reachd itself names the file it read at start and in
/// `reachd --check-config`; these say where to look first.
enum ReachdConfigurationFiles {
    /// The user's file as reachd finds it: `$XDG_CONFIG_HOME/reachd/reachd.conf`, else
    /// `~/.config/reachd/reachd.conf` (written with the tilde, as a person types it).
    static var user: String {
        if let home = getenv("XDG_CONFIG_HOME").map({ String(cString: $0) }), home.hasPrefix("/") {
            return (home.hasSuffix("/") ? String(home.dropLast()) : home) + "/reachd/reachd.conf"
        }
        return "~/.config/reachd/reachd.conf"
    }

    /// The session reachd's file where the user has none (`$XDG_CONFIG_DIRS`' default).
    static let sessionDefault = "/etc/xdg/reachd/reachd.conf"

    /// A system reachd's file.
    static let system = "/etc/reachd/reachd.conf"
}
