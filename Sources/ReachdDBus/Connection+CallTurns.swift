import CReachdDBus
import CReachdMemory
import Glibc

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

    /// Replies queued for the bus beyond which no more calls are answered until it has read them.
    static let outgoingBacklog = 1 << 10
    /// The connection socket's send buffer (the kernel doubles it): replies written and not yet
    /// read by the bus wait there in order, ahead of any later reply.
    static let socketSendBuffer: Int32 = 2 << 10

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

    /// Answers up to `callsPerTurn` waiting calls in round order, while the bus keeps up with the
    /// replies; asks for another turn while some wait, so the loop reads and serves in
    /// alternation and never sleeps on waiting calls.
    ///
    /// The bus reads this connection's replies as one of all its connections, so under a flood
    /// they queue before it: measured, 190 KiB of refusals in the socket held another user's
    /// reply for seconds. Calls wait here instead, in turns, and each reply joins a short queue.
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

    private var repliesBacklogged: Bool { dbus_connection_get_outgoing_size(raw) >= Self.outgoingBacklog }

    /// Keeps the replies that wait for the bus in libdbus's queue, behind `serveCallTurns`'s
    /// check, rather than in a large socket buffer nobody can reorder.
    func limitSocketSendBuffer() {
        var descriptor: Int32 = -1
        guard dbus_connection_get_socket(raw, &descriptor) != 0, descriptor >= 0 else { return }
        var size = Self.socketSendBuffer
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    /// A unique name that left the bus (its `NameOwnerChanged`): its calls will never be answered
    /// to anybody, and answering them after the signal would act for a gone caller (a monitor
    /// made for a client whose departure was already handled).
    func dropCalls(of leaving: BusName) {
        for call in callTurns.removeAll(from: leaving.rawValue) { dbus_message_unref(call.raw) }
    }
}
