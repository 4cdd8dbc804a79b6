import DBus

/// reachd's own D-Bus errors (`io.reachd.Reachability1.Error.*`).
enum ReachabilityErrors {
    static func invalidHost(_ message: String) -> DBusError {
        DBusError(name: "io.reachd.Reachability1.Error.InvalidHost", message: message)
    }
    static func limitExceeded(_ message: String) -> DBusError {
        DBusError(name: "io.reachd.Reachability1.Error.LimitExceeded", message: message)
    }
    static func notOwner(_ message: String) -> DBusError {
        DBusError(name: "io.reachd.Reachability1.Error.NotOwner", message: message)
    }
}
