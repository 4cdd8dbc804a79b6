import ReachdKit

/// Why a `wait --host` host is not reached, in words, from reachd's answer and, where reachd's
/// answer cannot tell, reachctl's own lookup of the name (`NameLookup`).
///
/// | reachd says | reachctl's lookup | cause |
/// |---|---|---|
/// | Unknown | not resolved | `name not resolved (no such name)` |
/// | Unknown | resolves, or none | `no answer from reachd yet …` |
/// | Not Reachable, InterventionRequired | — | `behind a captive portal (on IF)` |
/// | Not Reachable, ConnectionRequired | — | `a connection must be made first (on IF)` |
/// | Not Reachable, 0, an address literal | — | `no route` |
/// | Not Reachable, 0 | not resolved | `name not resolved (no such name)` |
/// | Not Reachable, 0 | resolves | `no route to 198.51.100.7` |
/// | Not Reachable, 0 | not answered yet | `no route, or the name does not resolve …` |
struct HostCause {
    var update: ReachabilityUpdate
    var isAddressLiteral: Bool
    var lookup: NameLookup.Answer?

    /// reachctl asks the resolver itself only where reachd's answer leaves the cause open.
    static func needsLookup(_ update: ReachabilityUpdate, name: String) -> Bool {
        !update.isReachable && !update.flags.contains(.reachable) && !NameLookup.isAddressLiteral(name)
    }

    var text: String {
        let on = update.interface.isEmpty ? "" : " (on \(update.interface))"
        if case .notResolved(let why)? = lookup, !isAddressLiteral { return "name not resolved (\(why))" }
        if update.status == .unknown {
            return isAddressLiteral ? "no answer from reachd yet" : "no answer from reachd yet (it may still be resolving the name)"
        }
        if update.flags.contains(.interventionRequired) { return "behind a captive portal\(on)" }
        if update.flags.contains(.connectionRequired) { return "a connection must be made first\(on)" }
        if isAddressLiteral { return "no route" }
        guard case .addresses(let addresses)? = lookup else {
            return "no route, or the name does not resolve (reachctl's own lookup of it has not answered)"
        }
        return "no route to \(addresses.joined(separator: ", "))"
    }
}
