/// What systemd-networkd says: its manager's `OnlineState` and what `DescribeLink` tells of each
/// link. A back end reads it from `org.freedesktop.network1`; the meaning is
/// `PublishedReachability(kernelPath4:kernelPath6:networkd:hasEligibleLink:)`'s.
///
/// ```swift
/// let snapshot = NetworkdSnapshot(onlineState: "online", links: [NetworkdLink(index: 2, name: "eth0")])
/// snapshot.isSource     // true
/// ```
public struct NetworkdSnapshot: Sendable, Hashable {
    /// The manager's `OnlineState`: `offline`, `partial`, `online`; `""` or `unknown` when no link
    /// is `RequiredForOnline`.
    public var onlineState: String
    /// The links networkd knows, by index.
    public var links: [NetworkdLink]

    public init(onlineState: String, links: [NetworkdLink] = []) {
        self.onlineState = onlineState
        self.links = links
    }

    /// networkd counts as a source only with an `OnlineState` (contract 3, §3.2), as GLib's
    /// networkd monitor does: a networkd that configures nothing says nothing.
    public var isSource: Bool { onlineState != "" && onlineState != "unknown" }

    /// The link with this kernel name.
    public func link(named name: String) -> NetworkdLink? { links.first { $0.name == name } }

    /// Each link's own `OnlineState`, by name, for the links that have one.
    public var linkOnlineStates: [String: String] {
        var states: [String: String] = [:]
        for link in links where link.hasOnlineState { states[link.name] = link.onlineState }
        return states
    }
}
