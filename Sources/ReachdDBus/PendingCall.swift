import CReachdDBus

/// One outstanding method call and the continuation waiting for it.
///
/// Confined to the connection's loop thread: libdbus calls `complete` from
/// `dbus_connection_dispatch` or a timeout handler, and cancellation arrives
/// through the connection actor. `continuation` is taken out the first time
/// it is resumed, so it is resumed exactly once.
final class PendingCall {
    private var continuation: CheckedContinuation<Message, any Error>?
    private var rawPending: OpaquePointer?
    private let onFinish: () -> Void
    /// Runs with the reply at the moment libdbus dispatches it, before any later message is
    /// dispatched: for state that must change in the bus's order (a name's owner), which the
    /// awaiting task, resumed later, could not keep.
    private let onReply: ((Message) -> Void)?
    /// Where a reply too large to read is known by its stand-in (`BusRelay`).
    private let oversized: OversizedMessages?

    init(continuation: CheckedContinuation<Message, any Error>, onReply: ((Message) -> Void)? = nil,
         oversized: OversizedMessages? = nil, onFinish: @escaping () -> Void) {
        self.continuation = continuation
        self.onReply = onReply
        self.oversized = oversized
        self.onFinish = onFinish
    }

    /// Sets the notify function in the same turn as the send; the reply cannot
    /// be dispatched in between because dispatch happens only on this thread,
    /// and a reply that libdbus completed anyway is checked for at once.
    func attach(_ pending: OpaquePointer) {
        rawPending = pending
        let context = Unmanaged.passRetained(self).toOpaque()
        dbus_pending_call_set_notify(pending, { pending, context in
            Unmanaged<PendingCall>.fromOpaque(context!).takeUnretainedValue().complete()
        }, context, { context in
            Unmanaged<PendingCall>.fromOpaque(context!).release()
        })
        if dbus_pending_call_get_completed(pending) != 0 { complete() }
    }

    private func complete() {
        guard let pending = rawPending, let continuation else { return }
        self.continuation = nil
        if let reply = dbus_pending_call_steal_reply(pending) {
            if let oversized, !oversized.isEmpty,
               let length = oversized.take(sender: Connection.sender(of: reply), serial: dbus_message_get_serial(reply)) {
                dbus_message_unref(reply)
                continuation.resume(throwing: OversizedMessages.refusal("reply", length: length))
                release()
                return
            }
            let message = MessageReader.read(reply)
            dbus_message_unref(reply)
            onReply?(message)
            continuation.resume(returning: message)
        } else {
            continuation.resume(throwing: DBusError.noReply("the call completed without a reply"))
        }
        release()
    }

    /// Ends the call early: with `error`, or with `CancellationError` when nil.
    func cancel(with error: DBusError?) {
        if let pending = rawPending { dbus_pending_call_cancel(pending) }
        if let continuation {
            self.continuation = nil
            continuation.resume(throwing: error ?? CancellationError())
        }
        release()
    }

    private func release() {
        if let pending = rawPending {
            rawPending = nil
            // Drops the reference from send_with_reply; libdbus then frees the
            // notify context, which releases the retain taken in `attach`.
            dbus_pending_call_unref(pending)
        }
        onFinish()
    }
}
