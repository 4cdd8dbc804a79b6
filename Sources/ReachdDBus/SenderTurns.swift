/// Work waiting for its turn, served in rounds: one item of each account with something waiting,
/// then the next round; within an account, its senders in rounds the same way; each sender's
/// items in their order (contract 7, §2).
///
/// An account is whatever the connection's owner counts callers by (on the system bus, a user:
/// `Connection.callTurnAccount`); without one, each sender is its own. So a caller who sent one
/// call waits for at most one item of every other account, however many connections another
/// user floods from (issue 44: 32,768 calls from one user's 256 connections held another user's
/// answer for seconds in arrival order).
struct SenderTurns<Item> {
    private var accounts = Rounds<Rounds<Item>>()
    /// The account each sender with items waiting is queued under.
    private var accountOfSender: [String: String] = [:]
    /// Senders out of the rounds until `release` (a call of theirs waits for a decision), with
    /// the items that came meanwhile; and which of them left the bus meanwhile.
    private var held: [String: [Item]] = [:]
    private var leftWhileHeld: Set<String> = []

    /// How many items wait, over every sender, held ones included.
    private(set) var count = 0
    var isEmpty: Bool { count == 0 }
    /// Whether `next()` has an item (held senders' items wait for `release`).
    var hasReady: Bool { !accounts.isEmpty }
    /// Nothing waits and no sender is held: no departure concerns the turns.
    var isIdle: Bool { count == 0 && held.isEmpty }

    /// Queues `item` after `sender`'s earlier ones. A sender whose account changed (it was not
    /// known yet when its first items came) moves to the new one with its items, in order.
    mutating func append(_ item: Item, from sender: String, account: String? = nil) {
        count += 1
        if held[sender] != nil {
            held[sender]!.append(item)
            return
        }
        let account = account ?? sender
        if let queuedUnder = accountOfSender[sender], queuedUnder != account {
            let earlier = take(from: sender, queuedUnder: queuedUnder)
            accounts.update(account, default: Rounds()) { senders in
                for item in earlier { senders.append(item, to: sender) }
            }
        }
        accountOfSender[sender] = account
        accounts.update(account, default: Rounds()) { $0.append(item, to: sender) }
    }

    /// The next item in round order, nil when nothing (but held items) waits.
    mutating func next() -> Item? {
        var taken: (sender: String, item: Item, senderDone: Bool)?
        accounts.serveNext { senders in
            guard let (sender, item) = senders.next() else { return false }
            taken = (sender, item, !senders.has(sender))
            return !senders.isEmpty
        }
        guard let taken else { return nil }
        if taken.senderDone { accountOfSender[taken.sender] = nil }
        count -= 1
        return taken.item
    }

    /// Takes `sender` out of the rounds: its items wait, and later ones with them, until
    /// `release`. For a sender whose call waits for a decision: its next calls must not be
    /// answered before that one.
    mutating func hold(_ sender: String) {
        guard held[sender] == nil else { return }
        held[sender] = accountOfSender[sender].map { take(from: sender, queuedUnder: $0) } ?? []
    }

    /// Puts `sender` back in the rounds, `first` (the call decided meanwhile) before its other
    /// items. A sender that left the bus meanwhile gets nothing: its items are returned.
    mutating func release(_ sender: String, first: Item, account: String? = nil) -> [Item] {
        let waiting = held.removeValue(forKey: sender) ?? []
        if leftWhileHeld.remove(sender) != nil {
            count -= waiting.count
            return [first] + waiting
        }
        count -= waiting.count
        for item in [first] + waiting { append(item, from: sender, account: account) }
        return []
    }

    /// Takes every item `sender` has waiting out of the rounds (a sender that left the bus).
    mutating func removeAll(from sender: String) -> [Item] {
        if let waiting = held[sender] {
            leftWhileHeld.insert(sender)
            held[sender] = []
            count -= waiting.count
            return waiting
        }
        guard let account = accountOfSender[sender] else { return [] }
        let removed = take(from: sender, queuedUnder: account)
        count -= removed.count
        return removed
    }

    /// Takes every item out (a connection that closed); held senders stay held, with nothing.
    mutating func removeAll() -> [Item] {
        var items = accounts.drain().flatMap { senders in
            var senders = senders
            return senders.drain()
        }
        for sender in held.keys {
            items += held[sender] ?? []
            held[sender] = []
            leftWhileHeld.insert(sender)
        }
        accountOfSender = [:]
        count = 0
        return items
    }

    /// `sender`'s items out of the rounds, in order (the count unchanged).
    private mutating func take(from sender: String, queuedUnder account: String) -> [Item] {
        accountOfSender[sender] = nil
        var removed: [Item] = []
        accounts.update(account, default: Rounds()) { removed = $0.removeAll(of: sender) }
        if accounts.value(of: account)?.isEmpty == true { _ = accounts.removeAll(of: account) }
        return removed
    }
}

/// Queues by key, served in rounds: `next()` takes from the key whose turn it is and moves the
/// turn on. A key new to the round joins just before the one served next, so it waits for at
/// most one turn of each key already there.
struct Rounds<Element> {
    private struct Queue {
        var elements: [Element] = []
        /// Elements before it were taken; compacted once it passes half the array.
        var head = 0
        var isEmpty: Bool { head == elements.count }
        var waiting: ArraySlice<Element> { elements[head...] }
    }

    private var queues: [String: Queue] = [:]
    /// The keys with elements waiting, in round order.
    private var round: [String] = []
    /// The index in `round` of the key served next.
    private var position = 0

    var isEmpty: Bool { round.isEmpty }

    func has(_ key: String) -> Bool { queues[key] != nil }

    mutating func append(_ element: Element, to key: String) {
        if queues[key] == nil { join(key) }
        queues[key, default: Queue()].elements.append(element)
    }

    /// The next element in round order, with its key.
    mutating func next() -> (key: String, element: Element)? {
        guard !round.isEmpty else { return nil }
        let key = round[position]
        guard var queue = queues.removeValue(forKey: key) else { return nil }
        let element = queue.elements[queue.head]
        queue.head += 1
        if queue.isEmpty {
            leave(at: position)
        } else {
            compact(&queue)
            queues[key] = queue
            position = (position + 1) % round.count
        }
        return (key, element)
    }

    /// For rounds of one element per key that is itself served in turns: `serve` changes the
    /// element of the key whose turn it is, and says whether it still has work (else the key
    /// leaves the round). The turn moves on either way.
    mutating func serveNext(_ serve: (inout Element) -> Bool) {
        guard !round.isEmpty else { return }
        let key = round[position]
        guard var queue = queues.removeValue(forKey: key), !queue.isEmpty else { return }
        if serve(&queue.elements[queue.head]) {
            queues[key] = queue
            position = (position + 1) % round.count
        } else {
            leave(at: position)
        }
    }

    /// The single element kept for `key` (see `update`).
    func value(of key: String) -> Element? {
        queues[key].flatMap { $0.isEmpty ? nil : $0.elements[$0.head] }
    }

    /// Changes the one element kept for `key`, made from `initial` (and joining the round) when
    /// there is none.
    mutating func update(_ key: String, default initial: @autoclosure () -> Element, _ change: (inout Element) -> Void) {
        if queues[key] == nil {
            join(key)
            queues[key] = Queue(elements: [initial()])
        }
        change(&queues[key]!.elements[queues[key]!.head])
    }

    mutating func removeAll(of key: String) -> [Element] {
        guard let queue = queues.removeValue(forKey: key), let index = round.firstIndex(of: key) else { return [] }
        leave(at: index)
        return Array(queue.waiting)
    }

    /// Every element, in round order, leaving the rounds empty.
    mutating func drain() -> [Element] {
        let elements = round.flatMap { key in queues[key].map { Array($0.waiting) } ?? [] }
        queues = [:]
        round = []
        position = 0
        return elements
    }

    private mutating func join(_ key: String) {
        round.insert(key, at: position)
        position = (position + 1) % round.count
    }

    private mutating func leave(at index: Int) {
        queues[round[index]] = nil
        round.remove(at: index)
        if index < position { position -= 1 }
        if position >= round.count { position = 0 }
    }

    private func compact(_ queue: inout Queue) {
        guard queue.head * 2 >= queue.elements.count else { return }
        queue.elements.removeFirst(queue.head)
        queue.head = 0
    }
}
