extension Connection {
    /// Signals matching `rule`, in the order they arrived, until the stream
    /// is dropped or the connection ends.
    ///
    /// The match rule is active on the bus when this returns, so a state read
    /// made afterwards cannot miss a change. Each subscription has its own
    /// bounded buffer; when a consumer falls behind by `bufferingPolicy`'s
    /// limit, the oldest undelivered signals are dropped.
    ///
    /// ```swift
    /// for await signal in try await bus.signals(matching: MatchRule(interface: "org.example.Clock")) { … }
    /// ```
    public func signals(
        matching rule: MatchRule,
        bufferingPolicy: AsyncStream<Message>.Continuation.BufferingPolicy = .bufferingNewest(4096)
    ) async throws -> AsyncStream<Message> {
        try await signals(matchingAny: [rule], bufferingPolicy: bufferingPolicy)
    }

    /// Signals matching any of `rules`, merged into one stream in arrival
    /// order: the order between, say, NetworkManager's signals and the bus's
    /// `NameOwnerChanged` about it is kept, which two streams would lose.
    public func signals(
        matchingAny rules: [MatchRule],
        bufferingPolicy: AsyncStream<Message>.Continuation.BufferingPolicy = .bufferingNewest(4096)
    ) async throws -> AsyncStream<Message> {
        let (stream, continuation) = AsyncStream.makeStream(of: Message.self, bufferingPolicy: bufferingPolicy)
        try await deliverSignals(matchingAny: rules, to: continuation) { $0 }
        return stream
    }

    /// Delivers the signals matching any of `rules` into a stream of the
    /// caller's, transformed, so that the caller can merge them with events
    /// of its own (a retry timer) into one stream, in arrival order. The
    /// subscription ends when that stream terminates or the connection ends
    /// (which finishes the stream).
    ///
    /// ```swift
    /// let (events, sink) = AsyncStream.makeStream(of: Event.self)
    /// try await bus.deliverSignals(matchingAny: rules, to: sink) { .signal($0) }
    /// retryTimer { sink.yield(.retry) }
    /// ```
    public func deliverSignals<Element: Sendable>(
        matchingAny rules: [MatchRule], to continuation: AsyncStream<Element>.Continuation,
        as transform: @escaping @Sendable (Message) -> Element
    ) async throws {
        let id = addSubscription(rules, deliver: { continuation.yield(transform($0)) }, onFinish: { continuation.finish() })
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeSubscription(id) }
        }
        do {
            for rule in rules {
                _ = try await callBus("AddMatch", [.string(rule.description)])
            }
        } catch {
            removeSubscription(id)
            throw error
        }
    }

    /// The owner of `name` now (nil when it has none), then each change of owner.
    ///
    /// ```swift
    /// for await owner in try await bus.nameOwnerChanges(of: "org.freedesktop.NetworkManager") {
    ///     print(owner.map { "owned by \($0)" } ?? "gone")
    /// }
    /// ```
    public func nameOwnerChanges(of name: BusName) async throws -> AsyncStream<BusName?> {
        let rule = MatchRule(sender: .bus, interface: .bus, member: "NameOwnerChanged",
                             path: "/org/freedesktop/DBus", arguments: [0: name.rawValue])
        let (stream, continuation) = AsyncStream.makeStream(of: BusName?.self, bufferingPolicy: .bufferingNewest(256))
        let sawChange = Flag()
        let id = addSubscription([rule], deliver: { signal in
            guard signal.body.count == 3, let newOwner = signal.body[2].stringValue else { return }
            sawChange.isSet = true
            continuation.yield(BusName(rawValue: newOwner))
        }, onFinish: { continuation.finish() })
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeSubscription(id) }
        }
        do {
            _ = try await callBus("AddMatch", [.string(rule.description)])
            let owner = try await nameOwner(of: name)
            // A change seen while asking is newer than the answer.
            if !sawChange.isSet { continuation.yield(owner) }
        } catch {
            removeSubscription(id)
            continuation.finish()
            throw error
        }
        return stream
    }

    /// The unique name owning `name`, or nil.
    public func nameOwner(of name: BusName) async throws -> BusName? {
        do {
            return try await callBus("GetNameOwner", [.string(name.rawValue)]).first?.stringValue.flatMap(BusName.init(rawValue:))
        } catch let error as DBusError where error.name == "org.freedesktop.DBus.Error.NameHasNoOwner" {
            return nil
        }
    }

    /// Asks the bus for `name`.
    public func requestName(_ name: BusName, flags: RequestNameFlags = []) async throws -> RequestNameReply {
        let reply = try await callBus("RequestName", [.string(name.rawValue), .uint32(flags.rawValue)])
        guard case .uint32(let code)? = reply.first, let result = RequestNameReply(rawValue: code) else {
            throw DBusError.failed("unexpected RequestName reply \(reply)")
        }
        return result
    }

    /// Gives `name` back to the bus.
    public func releaseName(_ name: BusName) async throws -> ReleaseNameReply {
        let reply = try await callBus("ReleaseName", [.string(name.rawValue)])
        guard case .uint32(let code)? = reply.first, let result = ReleaseNameReply(rawValue: code) else {
            throw DBusError.failed("unexpected ReleaseName reply \(reply)")
        }
        return result
    }

    private func addSubscription(
        _ rules: [MatchRule], deliver: @escaping (Message) -> Void, onFinish: @escaping () -> Void
    ) -> Int {
        nextSubscriptionID += 1
        subscriptions[nextSubscriptionID] = SignalSubscription(rules: rules, deliver: deliver, onFinish: onFinish)
        return nextSubscriptionID
    }

    private func removeSubscription(_ id: Int) {
        guard let subscription = subscriptions.removeValue(forKey: id) else { return }
        subscription.finish()
        guard isConnected else { return }
        // Nobody waits for these answers; the bus applies them in order.
        for rule in subscription.rules {
            var message = Message.methodCall(destination: .bus, path: "/org/freedesktop/DBus", interface: .bus,
                                             member: "RemoveMatch", body: [.string(rule.description)])
            message.noReplyExpected = true
            _ = try? send(message)
        }
    }
}

/// A yes/no shared between a subscription's delivery closure and the code
/// that set it up; both run on the connection's loop thread.
private final class Flag {
    var isSet = false
}
