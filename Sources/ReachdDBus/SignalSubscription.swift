/// A local consumer of signals matching any of its rules, and of the owners of the names it
/// watches. Confined to the connection's loop thread, where signals are delivered in arrival
/// order.
final class SignalSubscription {
    let rules: [MatchRule]
    /// Every well-known name this subscription needs followed: its rules' senders and the
    /// names it watches.
    let followedNames: Set<BusName>
    /// The names whose owner is reported to `ownerChanged`.
    let watchedNames: Set<BusName>
    private let deliver: (Message) -> Void
    private let ownerChanged: (BusName, BusName?) -> Void
    private let onFinish: () -> Void

    init(rules: [MatchRule], watching watchedNames: Set<BusName> = [], deliver: @escaping (Message) -> Void,
         ownerChanged: @escaping (BusName, BusName?) -> Void = { _, _ in }, onFinish: @escaping () -> Void) {
        self.rules = rules
        self.watchedNames = watchedNames
        self.followedNames = watchedNames.union(rules.compactMap(\.wellKnownSender))
        self.deliver = deliver
        self.ownerChanged = ownerChanged
        self.onFinish = onFinish
    }

    /// Whether a rule may take `header` (a signal read without its body): everything a rule
    /// says but its argument matches, which need the body.
    func mightTake(_ header: Message, owners: NameOwners) -> Bool {
        rules.contains { $0.matchesHeader(header, owner: owners.owner(of:)) }
    }

    func deliverIfMatching(_ message: Message, owners: NameOwners) {
        if rules.contains(where: { $0.matches(message, owner: owners.owner(of:)) }) { deliver(message) }
    }

    /// The owner of `name` became known, or changed.
    func owner(of name: BusName, is owner: BusName?) {
        if watchedNames.contains(name) { ownerChanged(name, owner) }
    }

    func finish() { onFinish() }
}
