import CReachdDBus
import Glibc
import ReachdEventLoops

/// Connects one libdbus connection to an `EventLoop`: its watches become
/// epoll registrations, its timeouts become loop timers, and its incoming
/// queue is dispatched after every turn of the loop.
///
/// Confined to the loop thread: libdbus calls these functions from inside
/// `dbus_watch_handle`, `dbus_connection_dispatch` and the setters, all of
/// which we only call on the loop thread.
final class LibdbusMainLoop {
    private let loop: EventLoop
    private let connection: OpaquePointer
    private var watchesByDescriptor: [Int32: [OpaquePointer]] = [:]
    private var knownTimeouts: Set<OpaquePointer> = []
    private var armedTimeouts: [OpaquePointer: TimerQueue.TimerID] = [:]
    private var turnHook: Int?
    /// Why the loop last refused a watch, for the error `attach()` throws.
    private var watchFailure: SystemCallError?
    private var closingUnwatchable = false
    /// Run after each turn's dispatch (the connection answers its waiting calls in turns).
    var afterDispatch: (() -> Void)?
    /// Whether a turn may read on while the socket has data (see `readAhead`).
    var readsAhead: (() -> Bool)?
    /// Puts more of what the bus sent in the socket, if there is more; true if it did (`BusRelay`).
    var refill: (() -> Bool)?
    /// Told when libdbus wrote what it had queued (`BusRelay` forwards it at the turn's end).
    var wrote: (() -> Void)?

    init(loop: EventLoop, connection: OpaquePointer) {
        self.loop = loop
        self.connection = connection
    }

    /// Installs the functions; `self` must stay alive until `detach()`.
    /// Throws when the loop cannot watch the connection's socket.
    func attach() throws(DBusError) {
        loop.preconditionOnLoop()
        let context = Unmanaged.passUnretained(self).toOpaque()
        // libdbus adds its existing watches here and answers FALSE if one
        // was refused (add(watch:) below).
        let watching = dbus_connection_set_watch_functions(connection, { watch, context in
            LibdbusMainLoop.from(context).add(watch: watch!)
        }, { watch, context in
            LibdbusMainLoop.from(context).remove(watch: watch!)
        }, { watch, context in
            LibdbusMainLoop.from(context).refreshOrClose(descriptor: dbus_watch_get_unix_fd(watch!))
        }, context, nil)
        guard watching != 0 else {
            throw DBusError.failed("cannot watch the bus connection's socket: \(watchFailure.map { "\($0)" } ?? "out of memory")")
        }
        dbus_connection_set_timeout_functions(connection, { timeout, context in
            LibdbusMainLoop.from(context).add(timeout: timeout!)
        }, { timeout, context in
            LibdbusMainLoop.from(context).remove(timeout: timeout!)
        }, { timeout, context in
            LibdbusMainLoop.from(context).toggled(timeout: timeout!)
        }, context, nil)
        // libdbus asks for a wake-up whenever it queues an outgoing message.
        // We only ever send on the loop thread, which is awake then and
        // dispatches before it sleeps again, so waking it through the eventfd
        // would cost a write, a read and an extra epoll_wait on every reply.
        dbus_connection_set_wakeup_main_function(connection, { context in
            let loop = LibdbusMainLoop.from(context).loop
            if !loop.isOnLoopThread { loop.wake() }
        }, context, nil)
        turnHook = loop.addTurnHook { [unowned self] in self.dispatchIncoming() }
    }

    /// Removes every registration; libdbus will not call us afterwards.
    func detach() {
        loop.preconditionOnLoop()
        dbus_connection_set_watch_functions(connection, nil, nil, nil, nil, nil)
        dbus_connection_set_timeout_functions(connection, nil, nil, nil, nil, nil)
        dbus_connection_set_wakeup_main_function(connection, nil, nil, nil)
        for descriptor in watchesByDescriptor.keys { loop.unwatch(descriptor) }
        watchesByDescriptor = [:]
        for id in armedTimeouts.values { loop.cancelTimer(id) }
        armedTimeouts = [:]
        knownTimeouts = []
        if let turnHook { loop.removeTurnHook(turnHook) }
        turnHook = nil
        afterDispatch = nil
        readsAhead = nil
        refill = nil
        wrote = nil
    }

    private static func from(_ context: UnsafeMutableRawPointer?) -> LibdbusMainLoop {
        Unmanaged<LibdbusMainLoop>.fromOpaque(context!).takeUnretainedValue()
    }

    /// Hands every message that libdbus has read to the filters, in arrival order.
    func dispatchIncoming() {
        while dbus_connection_dispatch(connection) == DBUS_DISPATCH_DATA_REMAINS {}
        afterDispatch?()
    }

    // MARK: Watches

    /// FALSE tells libdbus the watch could not be added; it then fails what
    /// needed it (at `attach()`, setting the watch functions).
    private func add(watch: OpaquePointer) -> dbus_bool_t {
        let descriptor = dbus_watch_get_unix_fd(watch)
        watchesByDescriptor[descriptor, default: []].append(watch)
        guard refresh(descriptor: descriptor) else {
            forget(watch: watch, on: descriptor)
            return 0
        }
        return 1
    }

    private func remove(watch: OpaquePointer) {
        let descriptor = dbus_watch_get_unix_fd(watch)
        forget(watch: watch, on: descriptor)
        refreshOrClose(descriptor: descriptor)
    }

    private func forget(watch: OpaquePointer, on descriptor: Int32) {
        watchesByDescriptor[descriptor]?.removeAll { $0 == watch }
        if watchesByDescriptor[descriptor]?.isEmpty == true { watchesByDescriptor[descriptor] = nil }
    }

    /// For changes libdbus cannot be told failed (a watch toggled or
    /// removed): a connection whose socket the loop no longer watches would
    /// hang without a word, so it is closed instead. libdbus then queues
    /// `Disconnected`, which the connection's owner already handles (reachd
    /// exits and is restarted). Deferred to the loop's next turn: libdbus is
    /// in the middle of a call into us.
    private func refreshOrClose(descriptor: Int32) {
        guard !refresh(descriptor: descriptor), !closingUnwatchable else { return }
        closingUnwatchable = true
        _ = loop.schedule(at: .now) { [weak self] in
            guard let self, self.turnHook != nil else { return }  // detached meanwhile
            dbus_connection_close(self.connection)
        }
    }

    /// epoll takes one registration per descriptor, while libdbus keeps a
    /// read and a write watch on the same socket: register their union.
    /// False when the loop refused it (`watchFailure` says why).
    private func refresh(descriptor: Int32) -> Bool {
        var wanted: EventLoop.Readiness = []
        for watch in watchesByDescriptor[descriptor] ?? [] where dbus_watch_get_enabled(watch) != 0 {
            let flags = dbus_watch_get_flags(watch)
            if flags & DBUS_WATCH_READABLE.rawValue != 0 { wanted.insert(.readable) }
            if flags & DBUS_WATCH_WRITABLE.rawValue != 0 { wanted.insert(.writable) }
        }
        // With no enabled watch the descriptor leaves epoll entirely: a
        // registration with no events would still report hang-ups, and a
        // level-triggered hang-up nobody handles would spin the loop.
        if wanted.isEmpty {
            loop.unwatch(descriptor)
            return true
        }
        do throws(SystemCallError) {
            try loop.watch(descriptor, for: wanted) { [unowned self] ready in
                self.handle(descriptor: descriptor, ready: ready)
            }
            return true
        } catch {
            watchFailure = error
            return false
        }
    }

    /// Reads the socket now, as if epoll had said it was readable: the relay has just written to
    /// it (`BusRelay.delivered`), and waiting for epoll would cost another turn of the loop.
    /// `handed`: the bytes it wrote. Taken for the socket's whole content: were anything left
    /// from before, epoll still says the socket is readable, and the next turn reads it.
    func readNow(descriptor: Int32, handed: Int) {
        handle(descriptor: descriptor, ready: .readable, handed: handed)
    }

    private func handle(descriptor: Int32, ready: EventLoop.Readiness, handed: Int? = nil) {
        var flags: UInt32 = 0
        if ready.contains(.readable) { flags |= DBUS_WATCH_READABLE.rawValue }
        if ready.contains(.writable) { flags |= DBUS_WATCH_WRITABLE.rawValue }
        if ready.contains(.error) { flags |= DBUS_WATCH_ERROR.rawValue }
        if ready.contains(.hangUp) { flags |= DBUS_WATCH_HANGUP.rawValue }
        for watch in watchesByDescriptor[descriptor] ?? [] {
            // Handling one watch can remove the other.
            guard watchesByDescriptor[descriptor]?.contains(watch) == true,
                  dbus_watch_get_enabled(watch) != 0 else { continue }
            let wanted = dbus_watch_get_flags(watch) | DBUS_WATCH_ERROR.rawValue | DBUS_WATCH_HANGUP.rawValue
            let relevant = flags & wanted
            if relevant != 0 { dbus_watch_handle(watch, relevant) }
            if relevant & DBUS_WATCH_READABLE.rawValue != 0 { readAhead(watch, on: descriptor, handed: handed) }
            if relevant & DBUS_WATCH_WRITABLE.rawValue != 0 {
                writeOn(watch, on: descriptor)
                wrote?()
            }
        }
    }

    /// libdbus reads at most a few KiB per `dbus_watch_handle`. A turn reads on, up to
    /// `readAheadPerTurn`, while the socket has data and the connection takes more (`readsAhead`):
    /// a call behind a flood in the socket reaches its turn without waiting for the flood to be
    /// answered first. The socket says how much it holds (FIONREAD) once for as many reads as that
    /// takes, not once a read.
    private func readAhead(_ watch: OpaquePointer, on descriptor: Int32, handed: Int? = nil) {
        var reads = 0
        var unread: Int32 = 0
        // libdbus reads until it has 2 KiB or the socket is empty: what the relay handed it, if
        // no more, is all read, and the socket need not be asked (see `readNow`).
        var knownEmpty = (handed ?? .max) <= Self.bytesPerFirstRead
        while reads < Self.readAheadPerTurn, readsAhead?() == true,
              watchesByDescriptor[descriptor]?.contains(watch) == true, dbus_watch_get_enabled(watch) != 0 {
            if unread <= 0 {
                if knownEmpty {
                    knownEmpty = false
                } else {
                    guard ioctl(descriptor, UInt(FIONREAD), &unread) == 0 else { return }
                }
                // Through a relay the socket holds a chunk at a time: the next one, if the bus sent it.
                if unread <= 0, refill?() == true, ioctl(descriptor, UInt(FIONREAD), &unread) != 0 { return }
                guard unread > 0 else { return }
            }
            dbus_watch_handle(watch, DBUS_WATCH_READABLE.rawValue)
            reads += 1
            unread -= Self.bytesPerRead
        }
    }

    /// What libdbus reads at most per `dbus_watch_handle`: 2 KiB a read, reading again while it
    /// has read no more than 2 KiB (`max_bytes_read_per_iteration`). Where it read less, the count
    /// runs out early and the socket is asked again.
    private static let bytesPerRead: Int32 = 4096
    /// What libdbus surely reads whole in one `dbus_watch_handle` (`max_bytes_read_per_iteration`).
    private static let bytesPerFirstRead = 2048

    /// About 1 MiB: libdbus reads up to 4 KiB per handle.
    private static let readAheadPerTurn = 256

    /// libdbus writes at most a few KiB per `dbus_watch_handle` too. Once replies have queued (the
    /// bus was slow to read them), a turn writes on while the socket takes them, up to
    /// `writeOnPerTurn`: a turn that read a flood is long, and a few KiB of replies per turn would
    /// leave the socket emptier than the bus could read it.
    private func writeOn(_ watch: OpaquePointer, on descriptor: Int32) {
        var writes = 0
        var queued = dbus_connection_get_outgoing_size(connection)
        while queued > 0, writes < Self.writeOnPerTurn,
              watchesByDescriptor[descriptor]?.contains(watch) == true, dbus_watch_get_enabled(watch) != 0 {
            dbus_watch_handle(watch, DBUS_WATCH_WRITABLE.rawValue)
            writes += 1
            let left = dbus_connection_get_outgoing_size(connection)
            guard left < queued else { break }  // the socket is full
            queued = left
        }
    }

    /// About 1 MiB, as `readAheadPerTurn`.
    private static let writeOnPerTurn = 256

    // MARK: Timeouts

    private func add(timeout: OpaquePointer) -> dbus_bool_t {
        knownTimeouts.insert(timeout)
        toggled(timeout: timeout)
        return 1
    }

    private func remove(timeout: OpaquePointer) {
        knownTimeouts.remove(timeout)
        if let id = armedTimeouts.removeValue(forKey: timeout) { loop.cancelTimer(id) }
    }

    private func toggled(timeout: OpaquePointer) {
        if let id = armedTimeouts.removeValue(forKey: timeout) { loop.cancelTimer(id) }
        guard dbus_timeout_get_enabled(timeout) != 0 else { return }
        let deadline = ContinuousClock.now + .milliseconds(Int(dbus_timeout_get_interval(timeout)))
        armedTimeouts[timeout] = loop.schedule(at: deadline) { [unowned self] in
            self.fire(timeout: timeout)
        }
    }

    /// libdbus timeouts repeat every interval until removed or disabled.
    private func fire(timeout: OpaquePointer) {
        armedTimeouts[timeout] = nil
        guard knownTimeouts.contains(timeout), dbus_timeout_get_enabled(timeout) != 0 else { return }
        dbus_timeout_handle(timeout)
        if knownTimeouts.contains(timeout), armedTimeouts[timeout] == nil {
            toggled(timeout: timeout)
        }
    }
}
