/// A local consumer of signals matching one rule. Confined to the
/// connection's loop thread, where signals are delivered in arrival order.
final class SignalSubscription {
    let rule: MatchRule
    private let deliver: (Message) -> Void
    private let onFinish: () -> Void

    init(rule: MatchRule, deliver: @escaping (Message) -> Void, onFinish: @escaping () -> Void) {
        self.rule = rule
        self.deliver = deliver
        self.onFinish = onFinish
    }

    func deliverIfMatching(_ message: Message) {
        if rule.matches(message) { deliver(message) }
    }

    func finish() { onFinish() }
}
