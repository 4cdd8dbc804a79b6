import CReachdDBus
import ReachdEventLoops
import Glibc

/// A connection to a message bus, owned by one event-loop thread.
///
/// `Connection` is an actor whose executor is its `EventLoop`: every isolated
/// method, and every libdbus callback, runs on that one thread, which is the
/// only thread that ever touches the `DBusConnection`. Callers anywhere use it
/// through `await`.
///
/// ```swift
/// let bus = try await Connection.session()
/// let reply = try await bus.call(.methodCall(destination: .bus, path: "/org/freedesktop/DBus",
///                                            interface: .bus, member: "GetId"))
/// ```
public actor Connection {
    public let loop: EventLoop
    /// False when the caller lent the loop (`open(address:loop:)`): then it
    /// may carry other work, and closing the connection leaves it running.
    private let ownsLoop: Bool
    let raw: OpaquePointer
    let mainLoop: LibdbusMainLoop
    public private(set) var uniqueName: BusName?
    public private(set) var isConnected = true
    var objects = ObjectTable()
    /// Replies of `objects` that are sent again while their generation holds.
    var replies = ReplyCache()
    /// Consulted before any call reaches `objects` (see `CallAdmission`); nil admits all.
    var callAdmission: CallAdmissionHook?
    var subscriptions: [Int: SignalSubscription] = [:]
    /// The owners of the well-known names the subscriptions follow.
    var owners = NameOwners()
    var nextSubscriptionID = 0
    var pendingCalls: [Int: PendingCall] = [:]
    var nextCallID = 0
    var disconnectWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
    /// Calls read and not yet answered, each holding a libdbus reference (see `serveCallTurns`).
    var callTurns = SenderTurns<WaitingCall>()
    /// The most calls that waited since the turns were last empty (`serveCallTurns`).
    var callTurnsPeak = 0
    /// Whom a sender's calls take turns as (`takeCallTurns(by:)`); nil: each sender for itself.
    var callTurnAccount: (@Sendable (BusName) -> String?)?
    var nextWaiterID = 0
    /// The serial of the last reply or signal written past libdbus (`sendPastLibdbus`).
    var directSerial = Connection.firstDirectSerial - 1
    /// The messages too large to read that came as stand-ins (`BusRelay`).
    let oversized: OversizedMessages
    /// Between libdbus and the bus; nil where there was none to be had (see `open`).
    let relay: BusRelay?
    private var closed = false

    public nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    private init(loop: EventLoop, ownsLoop: Bool, raw: OpaquePointer, relay: BusRelay?, oversized: OversizedMessages) {
        self.loop = loop
        self.ownsLoop = ownsLoop
        self.raw = raw
        self.relay = relay
        self.oversized = oversized
        self.mainLoop = LibdbusMainLoop(loop: loop, connection: raw)
    }

    // MARK: Opening

    /// Connects to the bus at `address` (e.g. `unix:path=/run/dbus/system_bus_socket`)
    /// and registers with it (`Hello`). Each connection gets its own loop thread
    /// unless `loop` is given.
    public static func open(address: String, loop: EventLoop? = nil) async throws -> Connection {
        dbus_threads_init_default()
        var error = CReachdDBus.DBusError()
        dbus_error_init(&error)
        guard let raw = dbus_connection_open_private(address, &error) else {
            defer { dbus_error_free(&error) }
            throw DBusError(
                name: ErrorName(rawValue: error.name.map { String(cString: $0) } ?? "") ?? "org.freedesktop.DBus.Error.Failed",
                message: error.message.map { String(cString: $0) } ?? "could not connect to \(address)")
        }
        let connectionLoop: EventLoop
        do {
            connectionLoop = try loop ?? EventLoop(name: "dbus \(address)")
        } catch {
            dbus_connection_close(raw)
            dbus_connection_unref(raw)
            throw error
        }
        // Before libdbus authenticates or watches its socket: from here on it reads the bus
        // through the relay. Without one (no socket descriptor, no socket pair to be had) it reads
        // the bus itself, and only `BodySize` bounds what a large message costs.
        let oversized = OversizedMessages()
        var descriptor: Int32 = -1
        let relay = dbus_connection_get_socket(raw, &descriptor) != 0
            ? BusRelay.interpose(on: descriptor, loop: connectionLoop, recording: oversized) : nil
        let connection = Connection(loop: connectionLoop, ownsLoop: loop == nil, raw: raw, relay: relay, oversized: oversized)
        try await connection.start()
        return connection
    }

    /// The session bus named by `DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`.
    public static func session(loop: EventLoop? = nil) async throws -> Connection {
        if let address = environment("DBUS_SESSION_BUS_ADDRESS"), !address.isEmpty {
            return try await open(address: address, loop: loop)
        }
        if let runtime = environment("XDG_RUNTIME_DIR"), access(runtime + "/bus", F_OK) == 0 {
            return try await open(address: "unix:path=\(runtime)/bus", loop: loop)
        }
        throw NoSessionBusError()
    }

    /// The system bus named by `DBUS_SYSTEM_BUS_ADDRESS`, else the standard socket.
    public static func system(loop: EventLoop? = nil) async throws -> Connection {
        try await open(address: systemBusAddress, loop: loop)
    }

    /// Where `system(loop:)` connects: `DBUS_SYSTEM_BUS_ADDRESS`, else the standard socket.
    public static var systemBusAddress: String {
        environment("DBUS_SYSTEM_BUS_ADDRESS").flatMap { $0.isEmpty ? nil : $0 } ?? "unix:path=/run/dbus/system_bus_socket"
    }

    private static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    private func start() async throws {
        // libdbus's default for bus connections is to exit the process when
        // the bus goes away; we report it and let the owner decide.
        dbus_connection_set_exit_on_disconnect(raw, 0)
        if let relay {
            try relay.attach()
            mainLoop.refill = { relay.refill() }
            mainLoop.wrote = { relay.libdbusWrote() }
            let descriptor = relay.libdbusDescriptor
            relay.delivered = { [unowned mainLoop] handed in mainLoop.readNow(descriptor: descriptor, handed: handed) }
        }
        try mainLoop.attach()
        relay?.forwardAtEachTurn()
        mainLoop.afterDispatch = { [weak self] in self?.assumeIsolated { $0.serveCallTurns() } }
        mainLoop.readsAhead = { [weak self] in self?.assumeIsolated { $0.callTurns.count < Self.callsReadAhead } ?? false }
        dbus_connection_add_filter(raw, connectionFilter, Unmanaged.passUnretained(self).toOpaque(), nil)
        let reply = try await callBus("Hello")
        guard let name = reply.first?.stringValue.flatMap(BusName.init(rawValue:)) else {
            throw DBusError.failed("the bus answered Hello without a unique name")
        }
        uniqueName = name
        _ = dbus_bus_set_unique_name(raw, name.rawValue)
    }

    // MARK: Closing

    /// Closes the connection: pending calls fail, subscriptions end, and the
    /// loop stops once the connection is gone, unless it was lent.
    public func close() {
        guard !closed else { return }
        closed = true
        dbus_connection_remove_filter(raw, connectionFilter, Unmanaged.passUnretained(self).toOpaque())
        dbus_connection_close(raw)
        relay?.close()
        markDisconnected()
        mainLoop.detach()
    }

    // Runs on the loop thread, the only one allowed to touch `raw`. The loop
    // stays up until here so that calls made after `close()` still get an
    // answer (a "disconnected" error) instead of hanging.
    isolated deinit {
        if !closed {
            dbus_connection_remove_filter(raw, connectionFilter, Unmanaged.passUnretained(self).toOpaque())
            dbus_connection_close(raw)
            relay?.close()
            mainLoop.detach()
        }
        for call in callTurns.removeAll() { dbus_message_unref(call.raw) }
        dbus_connection_unref(raw)
        if ownsLoop { loop.shutdown() }
    }

    /// Returns once the connection to the bus is lost or closed, or when the
    /// waiting task is cancelled.
    public func waitUntilDisconnected() async {
        guard isConnected else { return }
        nextWaiterID += 1
        let id = nextWaiterID
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled {
                    continuation.resume()
                } else {
                    disconnectWaiters[id] = continuation
                }
            }
        } onCancel: {
            Task { await self.stopWaiting(id) }
        }
    }

    private func stopWaiting(_ id: Int) {
        disconnectWaiters.removeValue(forKey: id)?.resume()
    }

    func markDisconnected() {
        guard isConnected else { return }
        isConnected = false
        for subscription in subscriptions.values { subscription.finish() }
        subscriptions = [:]
        for call in pendingCalls.values { call.cancel(with: .disconnected("the connection to the bus was closed")) }
        pendingCalls = [:]
        // Nobody is left to answer.
        for call in callTurns.removeAll() { dbus_message_unref(call.raw) }
        let waiters = disconnectWaiters.values
        disconnectWaiters = [:]
        for waiter in waiters { waiter.resume() }
    }

    // MARK: Incoming

    /// Every incoming message passes here, on the loop thread, in arrival order.
    fileprivate func receive(_ rawMessage: OpaquePointer) -> DBusHandlerResult {
        if !oversized.isEmpty, let length = oversized.take(sender: Self.sender(of: rawMessage), serial: dbus_message_get_serial(rawMessage)) {
            return receiveStandIn(rawMessage, for: length)
        }
        switch dbus_message_get_type(rawMessage) {
        case DBUS_MESSAGE_TYPE_SIGNAL:
            receiveSignal(rawMessage)
        case DBUS_MESSAGE_TYPE_METHOD_CALL:
            // Answered in turns between senders, after this turn of the loop has read what it can.
            dbus_message_ref(rawMessage)
            let sender = Self.sender(of: rawMessage)
            callTurns.append(WaitingCall(raw: rawMessage), from: sender, account: turnAccount(of: sender))
        default:
            // Replies are consumed by libdbus for their pending calls.
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        }
        return DBUS_HANDLER_RESULT_HANDLED
    }

    /// A message too large to read, which came as a stand-in (`BusRelay`): a call is refused in
    /// its sender's turn, a signal dropped; a reply is its pending call's (`PendingCall`).
    private func receiveStandIn(_ rawMessage: OpaquePointer, for length: Int) -> DBusHandlerResult {
        switch dbus_message_get_type(rawMessage) {
        case DBUS_MESSAGE_TYPE_METHOD_CALL:
            dbus_message_ref(rawMessage)
            let sender = Self.sender(of: rawMessage)
            let refusal = OversizedMessages.refusal("message", length: length)
            callTurns.append(WaitingCall(raw: rawMessage, decided: .refuse(refusal)), from: sender, account: turnAccount(of: sender))
            return DBUS_HANDLER_RESULT_HANDLED
        case DBUS_MESSAGE_TYPE_SIGNAL:
            return DBUS_HANDLER_RESULT_HANDLED
        default:
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        }
    }

    static func sender(of rawMessage: OpaquePointer) -> String {
        dbus_message_get_sender(rawMessage).map { String(cString: $0) } ?? ""
    }

    private func receiveSignal(_ rawMessage: OpaquePointer) {
        if dbus_message_is_signal(rawMessage, InterfaceName.local.rawValue, "Disconnected") != 0 {
            markDisconnected()
            return
        }
        // Decode only signals somebody subscribed to, judged on the header first (sender and its
        // owner, path, interface, member): a signal nobody takes costs the same whatever its
        // size, and one too large to be anybody's is dropped unread.
        // Calls waiting for their turn need the bus's word on who left, too.
        guard !subscriptions.isEmpty || !callTurns.isIdle else { return }
        var message = MessageReader.read(rawMessage, body: false)
        let isOwnerChange = message.sender == .bus && message.interface == .bus && message.member?.rawValue == "NameOwnerChanged"
        guard isOwnerChange || subscriptions.values.contains(where: { $0.mightTake(message, owners: owners) }) else { return }
        guard BodySize.fits(rawMessage) else { return }
        message.body = MessageReader.readBody(rawMessage)
        message.headerSignature = nil
        if let (name, owner) = Self.ownerChange(in: message) {
            if owner == nil, name.isUnique { dropCalls(of: name) }
            // An owner changes before the signal saying so is delivered, and before the new
            // owner's first signal, which the bus sends after it.
            if owners.changed(name, to: owner) {
                for id in subscriptions.keys.sorted() {
                    subscriptions[id]?.owner(of: name, is: owner)
                }
            }
        }
        for id in subscriptions.keys.sorted() {
            subscriptions[id]?.deliverIfMatching(message, owners: owners)
        }
    }

    // MARK: Outgoing

    /// Sends a message without waiting for a reply; returns its serial.
    @discardableResult
    public func send(_ message: Message) throws(DBusError) -> UInt32 {
        guard isConnected else { throw .disconnected("not connected to the bus") }
        let rawMessage = try MessageWriter.make(message)
        defer { dbus_message_unref(rawMessage) }
        return try send(raw: rawMessage)
    }

    /// Queues a libdbus message the caller keeps owning; returns its serial.
    @discardableResult
    func send(raw rawMessage: OpaquePointer) throws(DBusError) -> UInt32 {
        guard isConnected else { throw .disconnected("not connected to the bus") }
        if let relay, let serial = sendPastLibdbus(rawMessage, through: relay) { return serial }
        var serial: UInt32 = 0
        guard dbus_connection_send(raw, rawMessage, &serial) != 0 else {
            throw .noMemory("libdbus could not queue the message")
        }
        relay?.libdbusWrote()
        return serial
    }

    /// A reply or a signal goes to the bus through the relay, not through libdbus's socket pair
    /// and back (two system calls fewer each), when libdbus holds nothing that must go first;
    /// behind a bus that is slow to read, it waits in the relay's queue, not libdbus's. Its
    /// serial is from a range of ours: nobody answers a reply or a signal, so it need only be
    /// nonzero. nil: libdbus sends it (a call, descriptors, libdbus's queue not empty).
    private func sendPastLibdbus(_ rawMessage: OpaquePointer, through relay: BusRelay) -> UInt32? {
        guard dbus_message_get_type(rawMessage) != DBUS_MESSAGE_TYPE_METHOD_CALL,
              dbus_message_contains_unix_fds(rawMessage) == 0,
              dbus_connection_get_outgoing_size(raw) == 0, relay.canWriteDirectly() else { return nil }
        directSerial = directSerial == .max ? Self.firstDirectSerial : directSerial + 1
        dbus_message_set_serial(rawMessage, directSerial)
        var marshalled: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        guard dbus_message_marshal(rawMessage, &marshalled, &length) != 0, let marshalled else { return nil }
        defer { dbus_free(marshalled) }
        relay.writeDirectly(UnsafeRawBufferPointer(start: marshalled, count: Int(length)))
        return directSerial
    }

    /// Where the serials of replies and signals written past libdbus start: far from libdbus's
    /// own, which count up from 1.
    static let firstDirectSerial: UInt32 = 0x8000_0000

    /// Emits a signal from an object of ours.
    public func emitSignal(
        path: ObjectPath, interface: InterfaceName, member: MemberName, body: [DBusValue] = []
    ) throws(DBusError) {
        try send(.signal(path: path, interface: interface, member: member, body: body))
    }

    /// Calls a method and waits for its reply without blocking the loop.
    ///
    /// An error reply throws `DBusError` with the remote error's name. The
    /// continuation is resumed exactly once: by the reply, by libdbus's own
    /// timeout (`NoReply`), by disconnection, or by task cancellation.
    public func call(_ message: Message, timeout: Duration = .seconds(25)) async throws -> Message {
        try await call(message, timeout: timeout, onReply: nil)
    }

    /// `call`, with `onReply` run on the reply as libdbus dispatches it (see `PendingCall`).
    func call(_ message: Message, timeout: Duration, onReply: ((Message) -> Void)?) async throws -> Message {
        var message = message
        message.noReplyExpected = false
        guard isConnected else { throw DBusError.disconnected("not connected to the bus") }
        nextCallID += 1
        let id = nextCallID
        let reply = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Message, any Error>) in
                startCall(message, id: id, timeout: timeout, onReply: onReply, continuation: continuation)
            }
        } onCancel: {
            Task { await self.cancelCall(id) }
        }
        if let error = reply.error { throw error }
        return reply
    }

    /// Calls a method and returns the reply's body.
    public func call(
        destination: BusName?, path: ObjectPath, interface: InterfaceName?, member: MemberName,
        body: [DBusValue] = [], timeout: Duration = .seconds(25)
    ) async throws -> [DBusValue] {
        try await call(.methodCall(destination: destination, path: path, interface: interface, member: member, body: body),
                       timeout: timeout).body
    }

    /// A method of the bus daemon itself.
    func callBus(_ member: MemberName, _ body: [DBusValue] = []) async throws -> [DBusValue] {
        try await call(destination: .bus, path: "/org/freedesktop/DBus", interface: .bus, member: member, body: body)
    }

    private func startCall(
        _ message: Message, id: Int, timeout: Duration, onReply: ((Message) -> Void)?,
        continuation: CheckedContinuation<Message, any Error>
    ) {
        let rawMessage: OpaquePointer
        do {
            rawMessage = try MessageWriter.make(message)
        } catch {
            continuation.resume(throwing: error)
            return
        }
        defer { dbus_message_unref(rawMessage) }
        let pending = PendingCall(continuation: continuation, onReply: onReply, oversized: oversized) { [weak self] in
            self?.assumeIsolated { $0.pendingCalls[id] = nil }
        }
        var rawPending: OpaquePointer?
        let milliseconds = Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        guard dbus_connection_send_with_reply(raw, rawMessage, &rawPending, milliseconds) != 0, let rawPending else {
            // libdbus gives no pending call once the connection is disconnected.
            pending.cancel(with: .disconnected("not connected to the bus"))
            return
        }
        relay?.libdbusWrote()
        pendingCalls[id] = pending
        pending.attach(rawPending)
        if Task.isCancelled { cancelCall(id) }
    }

    private func cancelCall(_ id: Int) {
        pendingCalls.removeValue(forKey: id)?.cancel(with: nil)
    }
}

/// The one filter function of every connection; one constant so that
/// `dbus_connection_remove_filter` finds the same pointer it was given.
private let connectionFilter: DBusHandleMessageFunction = { _, message, context in
    let connection = Unmanaged<Connection>.fromOpaque(context!).takeUnretainedValue()
    // The pointer travels as bits only to satisfy the checker: the closure
    // runs synchronously on this same thread.
    let bits = UInt(bitPattern: message)
    return connection.assumeIsolated { $0.receive(OpaquePointer(bitPattern: bits)!) }
}
