/// A local consumer of signals matching any of its rules. Confined to the
/// connection's loop thread, where signals are delivered in arrival order.
final class SignalSubscription {
    let rules: [MatchRule]
    private let deliver: (Message) -> Void
    private let onFinish: () -> Void

    init(rules: [MatchRule], deliver: @escaping (Message) -> Void, onFinish: @escaping () -> Void) {
        self.rules = rules
        self.deliver = deliver
        self.onFinish = onFinish
    }

    func deliverIfMatching(_ message: Message) {
        if rules.contains(where: { $0.matches(message) }) { deliver(message) }
    }

    func finish() { onFinish() }
}
