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
    /// A rule's well-known sender lets through only the signals of that name's
    /// current owner, which the connection follows from here on.
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
        try await deliverEvents(matchingAny: rules, watching: [], to: continuation) { event in
            guard case .signal(let message) = event else { preconditionFailure("an owner event for no watched name") }
            return transform(message)
        }
    }

    /// Delivers, into one stream of the caller's and in the bus's order, the
    /// owner of each name in `names` (once known, then each change) and the
    /// signals matching any of `rules`: what a client of a service needs to
    /// follow it, with no bookkeeping of its own.
    ///
    /// Each watched name's first event is its owner when the subscription was
    /// made (nil: none); every later one is a change. Signals from a rule's
    /// well-known sender pass only from that name's current owner, so a signal
    /// that follows an owner event in the stream comes from that owner. Only
    /// the subscriptions that watch a name hear of its owner; a subscription
    /// that wants the bus's `NameOwnerChanged` itself can still name it in a
    /// rule (`arg0` is then the name).
    ///
    /// ```swift
    /// try await bus.deliverEvents(matchingAny: [MatchRule(sender: "net.connman")],
    ///                             watching: ["net.connman"], to: sink) { $0 }
    /// ```
    public func deliverEvents<Element: Sendable>(
        matchingAny rules: [MatchRule], watching names: Set<BusName>, to continuation: AsyncStream<Element>.Continuation,
        as transform: @escaping @Sendable (SignalEvent) -> Element
    ) async throws {
        let subscription = SignalSubscription(
            rules: rules, watching: names, deliver: { continuation.yield(transform(.signal($0))) },
            ownerChanged: { continuation.yield(transform(.ownerChanged($0, $1))) }, onFinish: { continuation.finish() })
        let id = addSubscription(subscription)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeSubscription(id) }
        }
        do {
            try await follow(subscription)
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
        let (stream, continuation) = AsyncStream.makeStream(of: BusName?.self, bufferingPolicy: .bufferingNewest(256))
        do {
            try await deliverEvents(matchingAny: [], watching: [name], to: continuation) { event in
                guard case .ownerChanged(_, let owner) = event else { preconditionFailure("a signal with no rule") }
                return owner
            }
        } catch {
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

    private func addSubscription(_ subscription: SignalSubscription) -> Int {
        nextSubscriptionID += 1
        subscriptions[nextSubscriptionID] = subscription
        return nextSubscriptionID
    }

    /// Follows the owners of the names `subscription` needs: a name already followed is shared
    /// (its owner, when known, is told at once); a new one gets its `NameOwnerChanged` rule and
    /// then `GetNameOwner`, whose answer is taken as libdbus dispatches it, in the bus's order.
    /// Returns once every new name's owner is known.
    private func follow(_ subscription: SignalSubscription) async throws {
        var newNames: [(BusName, Int)] = []
        for name in subscription.followedNames.sorted(by: { $0.rawValue < $1.rawValue }) {
            if let generation = owners.retain(name) {
                newNames.append((name, generation))
            } else if owners.isKnown(name) {
                subscription.owner(of: name, is: owners.owner(of: name))
            }
        }
        for (name, generation) in newNames {
            _ = try await callBus("AddMatch", [.string(Self.ownerChangedRule(name).description)])
            let question = Message.methodCall(destination: .bus, path: "/org/freedesktop/DBus", interface: .bus,
                                              member: "GetNameOwner", body: [.string(name.rawValue)])
            do {
                _ = try await call(question, timeout: .seconds(25)) { [weak self] reply in
                    let owner: BusName?
                    switch reply.kind {
                    case .methodReturn: owner = reply.body.first?.stringValue.flatMap(BusName.init(rawValue:))
                    case .error where reply.errorName?.rawValue == "org.freedesktop.DBus.Error.NameHasNoOwner": owner = nil
                    default: return
                    }
                    self?.assumeIsolated { $0.ownerAnswered(name, generation: generation, owner: owner) }
                }
            } catch let error as DBusError where error.name.rawValue == "org.freedesktop.DBus.Error.NameHasNoOwner" {
            }
        }
    }

    private func ownerAnswered(_ name: BusName, generation: Int, owner: BusName?) {
        guard owners.answered(name, generation: generation, owner: owner) else { return }
        for id in subscriptions.keys.sorted() {
            subscriptions[id]?.owner(of: name, is: owner)
        }
    }

    /// The bus's `NameOwnerChanged` about `name`, which keeps its owner current.
    static func ownerChangedRule(_ name: BusName) -> MatchRule {
        MatchRule(sender: .bus, interface: .bus, member: "NameOwnerChanged", path: "/org/freedesktop/DBus",
                  arguments: [0: name.rawValue])
    }

    /// The name and its new owner, when `message` is the bus's `NameOwnerChanged`.
    static func ownerChange(in message: Message) -> (BusName, BusName?)? {
        guard message.sender == .bus, message.interface == .bus, message.member?.rawValue == "NameOwnerChanged",
              message.body.count == 3, let name = message.body[0].stringValue.flatMap(BusName.init(rawValue:)),
              let newOwner = message.body[2].stringValue else { return nil }
        return (name, newOwner.isEmpty ? nil : BusName(rawValue: newOwner))
    }

    private func removeSubscription(_ id: Int) {
        guard let subscription = subscriptions.removeValue(forKey: id) else { return }
        subscription.finish()
        var rules = subscription.rules
        for name in subscription.followedNames where owners.release(name) {
            rules.append(Self.ownerChangedRule(name))
        }
        guard isConnected else { return }
        // Nobody waits for these answers; the bus applies them in order.
        for rule in rules {
            var message = Message.methodCall(destination: .bus, path: "/org/freedesktop/DBus", interface: .bus,
                                             member: "RemoveMatch", body: [.string(rule.description)])
            message.noReplyExpected = true
            _ = try? send(message)
        }
    }
}

/// What a subscription made with `Connection.deliverEvents` receives, in the bus's order.
public enum SignalEvent: Sendable, Hashable {
    /// A signal matching one of the subscription's rules.
    case signal(Message)
    /// The owner of a watched name: first the owner it had when the subscription was made
    /// (nil: none), then each new one.
    case ownerChanged(BusName, BusName?)
}
