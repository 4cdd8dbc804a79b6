import ReachdCore
import Synchronization

/// What each interface is (name, medium, up and running, class), read from
/// the kernel once and then remembered: for the length of one evaluation
/// round, when thousands of host monitors all route over the same few interfaces.
///
/// Reading an interface costs about a dozen system calls with path lookups
/// in sysfs; 10,000 monitors re-evaluated after a route change spent most of
/// their time there before the round shared one snapshot per interface.
/// A bridge's ports and a bond's or VLAN's lower links, read to classify it,
/// are remembered the same way, by name.
///
/// ```swift
/// let links = LinkSnapshots()
/// if let link = links.link(index: oif) {
///     link.linkClass(carriesPath: true)   // .routedVirtual for a container's eth0 veth
///     link.classification.interfaceType   // what a path over it is published as
/// }
/// ```
final class LinkSnapshots: Sendable {
    struct Link: Sendable {
        let name: String
        /// The link's own medium (`LinkMedium(facts)`), what the published value uses today.
        let medium: LinkMedium
        let isUpAndRunning: Bool
        /// Everything read about the link.
        let facts: LinkFacts
        /// Its class without the path, and the medium a path over it is published with.
        let classification: LinkClassification

        /// The class as long as the link does not carry the path: never `.routedVirtual`.
        var linkClass: LinkClass { classification.linkClass }

        /// The class when the link is, or is not, the outgoing link of the path (C5r).
        func linkClass(carriesPath: Bool) -> LinkClass { classification.linkClass(carriesPath: carriesPath) }

        /// A tunnel: it carries the path only over another link (PPP is not one).
        var needsUnderlay: Bool { linkClass.needsUnderlay }
    }

    private let lookup: LinkLookup?
    private let links = Mutex<[UInt32: Link?]>([:])
    private let factsByName = Mutex<[String: LinkFacts?]>([:])

    /// `lookup` answers the link kinds; nil leaves them to sysfs markers.
    init(lookup: LinkLookup? = LinkLookup.shared) {
        self.lookup = lookup
    }

    /// The interface with kernel index `index`, nil if it is gone.
    func link(index: UInt32) -> Link? {
        if let known = links.withLock({ $0[index] }) { return known }
        let link = LinkInspector.name(ofIndex: index).map { name in
            // A link whose sysfs directory is unreadable (it went away after the name was
            // read) is what it always was here: of no known type, and not up.
            let facts = facts(named: name, index: index) ?? LinkFacts(name: name, arphrdType: 0)
            return Link(name: name, medium: LinkMedium(facts), isUpAndRunning: facts.isUpAndRunning, facts: facts,
                        classification: LinkClassification(facts, linkNamed: { self.facts(named: $0) }))
        }
        links.withLock { $0[index] = link }
        return link
    }

    /// The facts about the interface `name`, read once per round.
    func facts(named name: String, index: UInt32? = nil) -> LinkFacts? {
        if let known = factsByName.withLock({ $0[name] }) { return known }
        let facts = LinkInspector.facts(of: name, index: index, lookup: lookup)
        factsByName.withLock { $0[name] = facts }
        return facts
    }
}
