import CReachdDBusShims
import Glibc
import ReachdEventLoops

/// Sits between a libdbus connection and its bus, so that a message too large to be read is never
/// read whole: the bus's socket moves to the relay, libdbus gets one end of a socket pair in its
/// place (the same descriptor number), and the bus's bytes reach libdbus through an
/// `IncomingFramer`. What libdbus sends goes to the bus as it is; replies and signals the
/// connection writes past libdbus (`writeDirectly`) join it in order.
///
/// The relay runs on the connection's loop, beside the libdbus watches, and touches no libdbus
/// object, only descriptors. A side that closes closes the other: the bus (libdbus then reads
/// the end of its stream and reports the disconnection) or libdbus (`close()`).
final class BusRelay {
    /// The largest message libdbus reads whole: it holds about twice a message's size while
    /// reading it (its buffer, then the body's copy), so one at this limit costs ~8 MiB.
    static let passLimit = 4 << 20
    /// What the relay reads at a time; it reads again once libdbus has taken it.
    static let chunk = 32 << 10
    /// Chunks read from a side in one turn of the loop at most (1 MiB), while the other takes them.
    static let readsPerTurn = 32
    /// The kernel passes at most this many descriptors with one read or write (SCM_MAX_FD).
    static let maximumPassed = 253

    private let loop: EventLoop
    /// libdbus's descriptor: its end of the pair, under the number the bus's socket had.
    let libdbusDescriptor: Int32
    private let bus: Int32
    private let relayEnd: Int32
    private var framer: IncomingFramer
    private var authentication = AuthenticationEnd()
    private let oversized: OversizedMessages
    private var toLibdbus = RelayOutgoing()
    private var toBus = RelayOutgoing()
    private var busOpen = true
    private var libdbusOpen = true
    private var closed = false
    private var watching: [Int32: EventLoop.Readiness] = [:]
    private var turnHook: Int?
    private var libdbusMayHaveWritten = false
    /// The last read from the bus filled the buffer: more may wait (`refill`); otherwise epoll says so.
    private var busMayHaveMore = false
    /// Bytes written to libdbus so far: whether a move handed it anything.
    private var handedToLibdbus = 0
    /// Has libdbus read its socket now (`LibdbusMainLoop.readNow`), after the relay wrote this
    /// many bytes to it.
    var delivered: ((Int) -> Void)?
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: BusRelay.chunk, alignment: 8)
    private let passed = UnsafeMutableBufferPointer<Int32>.allocate(capacity: BusRelay.maximumPassed)

    private init(loop: EventLoop, libdbusDescriptor: Int32, bus: Int32, relayEnd: Int32, oversized: OversizedMessages) {
        self.loop = loop
        self.libdbusDescriptor = libdbusDescriptor
        self.bus = bus
        self.relayEnd = relayEnd
        self.framer = IncomingFramer(passLimit: Self.passLimit)
        self.oversized = oversized
    }

    deinit {
        buffer.deallocate()
        passed.deallocate()
    }

    /// Puts a relay between a connection not yet authenticated and its bus, `descriptor` being
    /// the connection's socket; it moves bytes once `attach()`ed. Nil, with nothing changed,
    /// when it cannot.
    static func interpose(on descriptor: Int32, loop: EventLoop, recording oversized: OversizedMessages) -> BusRelay? {
        let bus = fcntl(descriptor, F_DUPFD_CLOEXEC, 3)
        guard bus >= 0 else { return nil }
        var pair: [Int32] = [-1, -1]
        let kind = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, kind, 0, &pair) == 0 else {
            Glibc.close(bus)
            return nil
        }
        guard CShims_replace_descriptor(pair[0], descriptor) >= 0 else {
            Glibc.close(bus); Glibc.close(pair[0]); Glibc.close(pair[1])
            return nil
        }
        Glibc.close(pair[0])
        return BusRelay(loop: loop, libdbusDescriptor: descriptor, bus: bus, relayEnd: pair[1], oversized: oversized)
    }

    /// Starts watching both sides. On the loop thread, before libdbus watches its own.
    func attach() throws(DBusError) {
        loop.preconditionOnLoop()
        try updateWatches()
    }

    /// From here on, what libdbus wrote in a turn of the loop goes to the bus at the turn's end
    /// (`libdbusWrote()`), not a turn later. After libdbus's own turn hook, which dispatches: the
    /// replies a dispatch sends go out in the same turn.
    func forwardAtEachTurn() {
        guard turnHook == nil, !closed else { return }
        turnHook = loop.addTurnHook { [unowned self] in
            guard self.libdbusMayHaveWritten, !self.closed else { return }
            self.libdbusMayHaveWritten = false
            // Taken whether or not the bus has taken what waits: a reply written past libdbus
            // later must not overtake it.
            self.takeAllFromLibdbus()
            self.writeBus()
            self.settle()
        }
    }

    /// libdbus was given a message to send (it writes it to the pair at once if it can), or wrote
    /// what it had queued.
    func libdbusWrote() {
        libdbusMayHaveWritten = true
    }

    /// Whether a message may go to the bus now past libdbus (`writeDirectly`): the bus takes
    /// what went before it, and what libdbus wrote is forwarded first, so the order holds.
    func canWriteDirectly() -> Bool {
        guard !closed, busOpen, libdbusOpen, authentication.reached else { return false }
        if libdbusMayHaveWritten {
            libdbusMayHaveWritten = false
            takeAllFromLibdbus()
        }
        return !closed && busOpen && libdbusOpen
    }

    /// Queues a whole marshalled message for the bus, after `canWriteDirectly()`, and writes it
    /// now if nothing waits before it; else it goes with what waits, in one write, when the bus
    /// can take it. The connection counts what waits here as libdbus's own queue (`waitingForBus`).
    func writeDirectly(_ message: UnsafeRawBufferPointer) {
        let wasEmpty = toBus.isEmpty
        toBus.append(message, [])
        if wasEmpty { writeBus() }
        settle()
    }

    /// Bytes on their way to the bus that it has not taken yet.
    var waitingForBus: Int { toBus.pending }

    /// Ends the relay: what libdbus wrote last goes to the bus if the bus takes it now, and both
    /// sockets close. On the loop thread, after `dbus_connection_close`.
    func close() {
        guard !closed else { return }
        // libdbus wrote each message as it was sent: what is still in the pair goes on, as it
        // would have from libdbus's own socket, while the bus takes it without waiting.
        if busOpen { writeBus() }
        while busOpen, libdbusOpen, toBus.isEmpty, readLibdbus() > 0 {
            writeBus()
        }
        finish()
    }

    /// Moves what the bus has sent on to libdbus, one chunk; true if it moved any. For a
    /// connection reading ahead through a flood, which would otherwise wait a turn per chunk.
    func refill() -> Bool {
        guard !closed, busOpen, libdbusOpen, toLibdbus.isEmpty, busMayHaveMore else { return false }
        readBus()
        let moved = !toLibdbus.isEmpty
        writeLibdbus()
        settle()
        return moved
    }

    // MARK: Moving bytes

    /// Reads a side that is readable, once what it sent last has gone on (or it hung up: then
    /// reading finds its end), on while the other side takes it, up to `readsPerTurn` chunks.
    private func handle(_ side: Int32, _ ready: EventLoop.Readiness) {
        guard !closed else { return }
        let hungUp = !ready.isDisjoint(with: [.hangUp, .error])
        let handedBefore = handedToLibdbus
        if side == bus {
            if ready.contains(.writable) { writeBus() }
            let reads = hungUp || (ready.contains(.readable) && toLibdbus.isEmpty)
            move(reading: reads ? readBus : nil, then: writeLibdbus) { busOpen && toLibdbus.isEmpty }
        } else {
            if ready.contains(.writable) { writeLibdbus() }
            let reads = hungUp || (ready.contains(.readable) && toBus.isEmpty)
            move(reading: reads ? readLibdbus : nil, then: writeBus) { libdbusOpen && toBus.isEmpty }
        }
        let handed = handedToLibdbus &- handedBefore
        settle()
        // libdbus reads what it was given in this same turn, rather than after another epoll_wait.
        if handed != 0, !closed, libdbusOpen { self.delivered?(handed) }
    }

    /// Reads a chunk with `read` and passes it on with `write`, on while a whole chunk came and
    /// `more` holds, up to `readsPerTurn` chunks; only passes on what waits when `read` is nil.
    private func move(reading read: (() -> Int)?, then write: () -> Void, while more: () -> Bool) {
        guard let read else { return write() }
        for _ in 0..<Self.readsPerTurn {
            let count = read()
            write()
            guard count == Self.chunk, more() else { break }
        }
    }

    /// Everything libdbus has written so far, into the queue for the bus.
    private func takeAllFromLibdbus() {
        while libdbusOpen, readLibdbus() == Self.chunk {}
    }

    /// Reads a chunk from the bus; returns how many bytes it read.
    @discardableResult
    private func readBus() -> Int {
        guard let (bytes, fds) = receive(from: bus) else {
            busOpen = false
            return 0
        }
        busMayHaveMore = bytes.count == Self.chunk
        if authentication.reached {
            framer.feed(bytes, into: &toLibdbus.bytes) { standIn, frame in
                oversized.record(.init(sender: standIn.sender, serial: standIn.serial), length: frame.totalLength)
            }
        } else {
            // Text lines of the authentication: the bus sends no message before the client's BEGIN.
            toLibdbus.bytes += bytes
        }
        toLibdbus.fds += fds
        return bytes.count
    }

    /// Reads a chunk of what libdbus wrote; returns how many bytes it read.
    @discardableResult
    private func readLibdbus() -> Int {
        guard let (bytes, fds) = receive(from: relayEnd) else {
            libdbusOpen = false
            return 0
        }
        if !authentication.reached { authentication.scan(bytes) }
        toBus.append(bytes, fds)
        return bytes.count
    }

    private func writeBus() {
        if busOpen, !toBus.isEmpty, !toBus.write(to: bus) { busOpen = false }
    }

    private func writeLibdbus() {
        guard libdbusOpen, !toLibdbus.isEmpty else { return }
        let pending = toLibdbus.pending
        if !toLibdbus.write(to: relayEnd) { libdbusOpen = false }
        handedToLibdbus &+= pending - toLibdbus.pending
    }

    /// After a move: a side that closed ends the relay once the other has what was on its way
    /// (or cannot take it); otherwise each side is watched for what it can do next.
    private func settle() {
        let busDone = !busOpen && (toLibdbus.isEmpty || !libdbusOpen)
        let libdbusDone = !libdbusOpen && (toBus.isEmpty || !busOpen)
        if busDone || libdbusDone {
            // libdbus reads the end of its stream and reports the disconnection.
            finish()
            return
        }
        do throws(DBusError) {
            try updateWatches()
        } catch {
            // The loop cannot watch a side any more: end the connection, as LibdbusMainLoop does.
            finish()
        }
    }

    /// Reads a side only when what it sent last has gone on: the rest waits in the bus's queue,
    /// not ours. A side with nothing to wait for leaves epoll (a hang-up would spin the loop).
    private func updateWatches() throws(DBusError) {
        var busWants: EventLoop.Readiness = []
        if busOpen, libdbusOpen, toLibdbus.isEmpty { busWants.insert(.readable) }
        if busOpen, !toBus.isEmpty { busWants.insert(.writable) }
        var libdbusWants: EventLoop.Readiness = []
        if libdbusOpen, busOpen, toBus.isEmpty { libdbusWants.insert(.readable) }
        if libdbusOpen, !toLibdbus.isEmpty { libdbusWants.insert(.writable) }
        try watch(bus, for: busWants)
        try watch(relayEnd, for: libdbusWants)
    }

    private func watch(_ side: Int32, for readiness: EventLoop.Readiness) throws(DBusError) {
        guard watching[side] != readiness else { return }
        if readiness.isEmpty {
            loop.unwatch(side)
            watching[side] = nil
            return
        }
        do throws(SystemCallError) {
            try loop.watch(side, for: readiness) { [unowned self] ready in self.handle(side, ready) }
            watching[side] = readiness
        } catch {
            throw DBusError.failed("cannot watch the bus connection's socket: \(error)")
        }
    }

    private func finish() {
        guard !closed else { return }
        closed = true
        for side in watching.keys { loop.unwatch(side) }
        watching = [:]
        if let turnHook { loop.removeTurnHook(turnHook) }
        turnHook = nil
        delivered = nil
        toLibdbus.discard()
        toBus.discard()
        Glibc.close(bus)
        Glibc.close(relayEnd)
    }

    /// Bytes and descriptors the side sent (none when it has nothing now), or nil once it has
    /// closed. The bytes are valid until the next read.
    private func receive(from side: Int32) -> (UnsafeRawBufferPointer, [Int32])? {
        var count: Int32 = 0
        while true {
            let got = CShims_receive(side, buffer.baseAddress, buffer.count, passed.baseAddress, Int32(passed.count), &count)
            let fds = count > 0 ? Array(passed.prefix(Int(count))) : []
            if got > 0 { return (UnsafeRawBufferPointer(rebasing: buffer[..<got]), fds) }
            if got < 0, errno == EINTR { continue }
            if got < 0, errno == EAGAIN || errno == EWOULDBLOCK { return (UnsafeRawBufferPointer(rebasing: buffer[..<0]), []) }
            for fd in fds { Glibc.close(fd) }
            return nil
        }
    }
}
