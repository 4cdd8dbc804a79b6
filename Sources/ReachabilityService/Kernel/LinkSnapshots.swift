import ReachabilityCore
import Synchronization

/// What each interface is (name, medium, up and running), read from sysfs
/// once and then remembered: for the length of one evaluation round, when
/// thousands of host monitors all route over the same few interfaces.
///
/// Reading an interface costs about a dozen system calls with path lookups
/// in sysfs; 10,000 monitors re-evaluated after a route change spent most of
/// their time there before the round shared one snapshot per interface.
final class LinkSnapshots: Sendable {
    struct Link: Sendable {
        let name: String
        let medium: LinkMedium
        let isUpAndRunning: Bool
        /// A tunnel (tun, WireGuard): it carries the path only over another link.
        /// PPP is a tunnel medium too, but runs over a modem or PPPoE link of its own.
        let needsUnderlay: Bool
    }

    private let links = Mutex<[UInt32: Link?]>([:])

    /// The interface with kernel index `index`, nil if it is gone.
    func link(index: UInt32) -> Link? {
        if let known = links.withLock({ $0[index] }) { return known }
        let link = LinkInspector.name(ofIndex: index).map { name in
            let facts = LinkInspector.facts(of: name)
            let medium = LinkMedium(facts)
            return Link(name: name, medium: medium, isUpAndRunning: LinkInspector.isUpAndRunning(name),
                        needsUnderlay: medium == .tunnel && facts.arphrdType != LinkFacts.arphrdPPP)
        }
        links.withLock { $0[index] = link }
        return link
    }
}
