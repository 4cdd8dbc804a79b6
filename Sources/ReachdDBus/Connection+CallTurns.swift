import CReachdDBus
import CReachdMemory

/// Calls are answered in turns between senders (`SenderTurns`), a bounded number per turn of the
/// loop, while the loop keeps reading: a caller's call is read soon after it reaches the socket,
/// whatever another sender has queued before it, and is answered after at most one call of each
/// other sender with calls waiting.
extension Connection {
    /// A call read and not yet answered: its libdbus message, of which it holds one reference,
    /// and the admission's decision (`.admit` or `.refuse`) where it had to wait for one.
    struct WaitingCall {
        let raw: OpaquePointer
        var decided: CallAdmission? = nil
    }

    /// Calls answered per turn of the loop before it reads again.
    static let callsPerTurn = 8
    /// While fewer calls than this wait, a turn reads on while the socket has data (see
    /// `LibdbusMainLoop.readsAhead`); beyond it the loop reads at libdbus's own pace, a few KiB per
    /// turn. Twice what Debian's system bus lets one user have waiting (256 connections × 128
    /// replies), so one user's flood is read through at once; libdbus's own limit on the bytes of
    /// messages alive (63 MiB) still bounds what large ones hold.
    static let callsReadAhead = 65_536

    /// After a backlog this long, what it held goes back to the system once it is answered.
    static let backlogWorthTrimming = 4_096

    /// Replies queued in libdbus for the bus beyond which no more calls are answered until it has
    /// read some: a bound on what a bus that stops reading can make this connection hold, not a
    /// pace. Replies go at reachd's own pace into the socket's default send buffer.
    ///
    /// Holding replies back to keep the queue short (1 KiB here and a 4 KiB socket buffer, until
    /// 2026-11-29) made the flood it was meant to tame worse. The bus keeps every call routed to
    /// reachd on one list until it reads the reply, and walks that list for each call it routes
    /// and each reply it reads (`bus_connections_expect_reply`, `_check_reply`); it reads a
    /// connection at most 4 KiB at a time. Held replies left the bus little to read when it came
    /// to this connection, so the list grew toward the whole flood and the bus's CPU per flood of
    /// 256 × 128 grew from 4 s to 14 s over five floods, another user waiting up to 6 s. With the
    /// socket full of answers, the bus's CPU stays at 2-4 s a flood, as for a C service that answers
    /// every call at once, and the other user's worst is under 0.2 s (docs/contributors/benchmarks.md,
    /// the flood row; `SystemInstanceFloodTests`).
    static let outgoingBacklog = 64 << 10

    /// Counts calls by `account` when taking turns: on the system bus a user's connections are
    /// one account, so another user waits for one of that user's calls, not one per connection.
    /// nil (or an account of nil): each sender is its own.
    public func takeCallTurns(by account: (@Sendable (BusName) -> String?)?) {
        callTurnAccount = account
    }

    /// The account `sender`'s calls take turns as, nil for its own.
    func turnAccount(of sender: String) -> String? {
        callTurnAccount?(BusName(validated: sender))
    }

    /// Answers up to `callsPerTurn` waiting calls in round order, unless the bus has stopped
    /// reading the replies; asks for another turn while some wait, so the loop reads and serves
    /// in alternation and never sleeps on waiting calls.
    func serveCallTurns() {
        guard !callTurns.isEmpty else { return }
        var served = 0
        while served < Self.callsPerTurn, !repliesBacklogged, let call = callTurns.next() {
            receiveCall(call)
            dbus_message_unref(call.raw)
            served += 1
        }
        // A backlog of replies asks libdbus for the socket's writability: that turn serves on.
        // Held senders' calls wait for their decision, which serves them (`decided`): no spin.
        if callTurns.hasReady, !repliesBacklogged { loop.wake() }
        callTurnsPeak = max(callTurnsPeak, callTurns.count + served)
        guard callTurns.isEmpty else { return }
        // Thousands of messages read ahead leave glibc's heap large once they are answered.
        if callTurnsPeak >= Self.backlogWorthTrimming { _ = CMemory_trim(0) }
        callTurnsPeak = 0
    }

    private var repliesBacklogged: Bool {
        Int(dbus_connection_get_outgoing_size(raw)) + (relay?.waitingForBus ?? 0) >= Self.outgoingBacklog
    }

    /// A unique name that left the bus (its `NameOwnerChanged`): its calls will never be answered
    /// to anybody, and answering them after the signal would act for a gone caller (a monitor
    /// made for a client whose departure was already handled).
    func dropCalls(of leaving: BusName) {
        for call in callTurns.removeAll(from: leaving.rawValue) { dbus_message_unref(call.raw) }
    }
}
