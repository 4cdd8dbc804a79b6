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

    /// Replies queued in libdbus for the bus beyond which no more calls are answered until the
    /// socket takes them (`socketSendBuffer`): with it, the pipe of replies another caller's reply
    /// joins at the back.
    ///
    /// The pipe's depth is what another user waits for when one user floods: dbus-daemon reads a
    /// connection at most 4 KiB a visit, and under a flood at its per-user limits it visits
    /// reachd's connection once among 256 others, while its one list of every routed call grows
    /// and each visit slows (`bus_connections_expect_reply`, `_check_reply` walk it). With 64 KiB
    /// here and the socket's default buffer (~44 KiB of replies), a reply waited about 27 visits:
    /// 4-10 times the bus's own answer to the same user (up to 4.9 s against 0.66 s, issue 44's
    /// note). Too shallow starves the bus instead: 1 KiB and a 4 KiB socket buffer left it less
    /// than a visit's read, so it drained reachd slower and its list grew (until 2026-11-29).
    /// 4 KiB here and ~14 KiB in the socket is about five visits, and the bus finds a full read
    /// at each (`LibdbusMainLoop` writes on while it reads): 3-6 times the bus's own answer.
    static let outgoingBacklog = 4 << 10

    /// reachd's end of the bus socket's send buffer. The kernel doubles it and counts each
    /// message's overhead: it holds about 86 replies of 160 bytes (~14 KiB), three of the bus's
    /// reads. The default (208 KiB) holds 278.
    static let socketSendBuffer: Int32 = 32 << 10

    /// Sets `socketSendBuffer` on the connection's socket.
    func limitSocketSendBuffer() {
        var descriptor: Int32 = -1
        guard dbus_connection_get_socket(raw, &descriptor) != 0, descriptor >= 0 else { return }
        var size = Self.socketSendBuffer
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

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

    private var repliesBacklogged: Bool { dbus_connection_get_outgoing_size(raw) >= Self.outgoingBacklog }

    /// A unique name that left the bus (its `NameOwnerChanged`): its calls will never be answered
    /// to anybody, and answering them after the signal would act for a gone caller (a monitor
    /// made for a client whose departure was already handled).
    func dropCalls(of leaving: BusName) {
        for call in callTurns.removeAll(from: leaving.rawValue) { dbus_message_unref(call.raw) }
    }
}
