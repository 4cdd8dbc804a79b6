import Foundation

// PostHog's multicast hook (PostHogMulticastCallback.swift): every subscriber called on each
// invoke; a subscription lasts while its token is held. Only what this file uses, and a subscribe.
final class PostHogMulticastCallback<Value> {
    private let lock = NSLock()
    private var subscribers: [UUID: (Value) -> Void] = [:]

    func subscribe(_ callback: @escaping (Value) -> Void) -> RegistrationToken {
        let id = UUID()
        lock.withLock { subscribers[id] = callback }
        return RegistrationToken { [weak self] in self?.lock.withLock { _ = self?.subscribers.removeValue(forKey: id) } }
    }

    func invoke(_ value: Value) {
        for callback in lock.withLock({ Array(subscribers.values) }) { callback(value) }
    }
}

final class RegistrationToken {
    private let cancel: () -> Void
    init(_ cancel: @escaping () -> Void) { self.cancel = cancel }
    deinit { cancel() }
}
