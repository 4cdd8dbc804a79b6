import DBus
import ReachabilityContract

/// reachd's own D-Bus errors, as host parsing throws them; the names are the contract's.
enum ReachabilityErrors {
    static func invalidHost(_ message: String) -> DBusError { ReachabilityContract.invalidHost(message) }
}
