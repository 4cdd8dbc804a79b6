import CReachdDBusShims
import Glibc
import ReachdEventLoops

/// Sits between a libdbus connection and its bus, so that a message too large to be read is never
/// read whole: the bus's socket moves to the relay, libdbus gets one end of a socket pair in its
/// place (the same descriptor number), and the bus's bytes reach libdbus through an
/// `IncomingFramer`. What libdbus sends goes to the bus as it is.
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
    /// Chunks read from the bus in one turn of the loop at most (1 MiB), while libdbus takes them.
    static let readsPerTurn = 32
    /// The kernel passes at most this many descriptors with one read or write (SCM_MAX_FD).
    static let maximumPassed = 253

    private let loop: EventLoop
    private let bus: Int32
    private let relayEnd: Int32
    private var framer: IncomingFramer
    private var authentication = AuthenticationEnd()
    private let oversized: OversizedMessages
    private var toLibdbus = Outgoing()
    private var toBus = Outgoing()
    private var busOpen = true
    private var libdbusOpen = true
    private var closed = false
    private var watching: [Int32: EventLoop.Readiness] = [:]
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: BusRelay.chunk, alignment: 8)
    private let passed = UnsafeMutableBufferPointer<Int32>.allocate(capacity: BusRelay.maximumPassed)

    private init(loop: EventLoop, bus: Int32, relayEnd: Int32, passLimit: Int, oversized: OversizedMessages) {
        self.loop = loop
        self.bus = bus
        self.relayEnd = relayEnd
        self.framer = IncomingFramer(passLimit: passLimit)
        self.oversized = oversized
    }

    deinit {
        buffer.deallocate()
        passed.deallocate()
    }

    /// Puts a relay between a connection not yet authenticated and its bus, `descriptor` being
    /// the connection's socket; it moves bytes once `attach()`ed. Nil, with nothing changed,
    /// when it cannot.
    static func interpose(on descriptor: Int32, loop: EventLoop, passLimit: Int = BusRelay.passLimit,
                          recording oversized: OversizedMessages) -> BusRelay? {
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
        return BusRelay(loop: loop, bus: bus, relayEnd: pair[1], passLimit: passLimit, oversized: oversized)
    }

    /// Starts watching both sides. On the loop thread, before libdbus watches its own.
    func attach() throws(DBusError) {
        loop.preconditionOnLoop()
        try updateWatches()
    }

    /// Ends the relay: what libdbus wrote last goes to the bus if the bus takes it now, and both
    /// sockets close. On the loop thread, after `dbus_connection_close`.
    func close() {
        guard !closed else { return }
        if busOpen, libdbusOpen, toBus.isEmpty, let (bytes, fds) = receive(from: relayEnd) {
            toBus.append(bytes, fds)
        }
        if busOpen { _ = toBus.write(to: bus) }
        finish()
    }

    /// Moves what the bus has sent on to libdbus, one chunk; true if it moved any. For a
    /// connection reading ahead through a flood, which would otherwise wait a turn per chunk.
    func refill() -> Bool {
        guard !closed, busOpen, libdbusOpen, toLibdbus.isEmpty else { return false }
        readBus()
        let moved = !toLibdbus.isEmpty
        writeLibdbus()
        settle()
        return moved
    }

    // MARK: Moving bytes

    private func handle(_ side: Int32, _ ready: EventLoop.Readiness) {
        guard !closed else { return }
        let readable = !ready.isDisjoint(with: [.readable, .hangUp, .error])
        if side == bus {
            if ready.contains(.writable) { writeBus() }
            if readable {
                // On while what is read goes on at once, up to `readsPerTurn`: an oversized
                // message's body is dropped in a few turns rather than one per chunk.
                for _ in 0..<Self.readsPerTurn {
                    let read = readBus()
                    writeLibdbus()
                    guard read == Self.chunk, busOpen, toLibdbus.isEmpty else { break }
                }
            } else {
                writeLibdbus()
            }
        } else {
            if readable { readLibdbus() }
            if ready.contains(.writable) { writeLibdbus() }
            writeBus()
        }
        settle()
    }

    /// Reads a chunk from the bus; returns how many bytes it read.
    @discardableResult
    private func readBus() -> Int {
        guard let (bytes, fds) = receive(from: bus) else {
            busOpen = false
            return 0
        }
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

    private func readLibdbus() {
        guard let (bytes, fds) = receive(from: relayEnd) else {
            libdbusOpen = false
            return
        }
        if !authentication.reached { authentication.scan(bytes) }
        toBus.append(bytes, fds)
    }

    private func writeBus() {
        if busOpen, !toBus.isEmpty, !toBus.write(to: bus) { busOpen = false }
    }

    private func writeLibdbus() {
        if libdbusOpen, !toLibdbus.isEmpty, !toLibdbus.write(to: relayEnd) { libdbusOpen = false }
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

    /// Bytes on their way to one side, with the descriptors that travel with them.
    private struct Outgoing {
        var bytes: [UInt8] = []
        var sent = 0
        /// Passed with the next bytes written; a stand-in's follow it even though its body did not.
        var fds: [Int32] = []

        var isEmpty: Bool { sent == bytes.count }

        mutating func append(_ more: UnsafeRawBufferPointer, _ moreFds: [Int32]) {
            bytes += more
            fds += moreFds
        }

        /// Writes what the side takes now; false once it cannot take anything any more.
        mutating func write(to side: Int32) -> Bool {
            while sent < bytes.count {
                let passing = fds.prefix(BusRelay.maximumPassed)
                let written = bytes.withUnsafeBytes { all in
                    Array(passing).withUnsafeBufferPointer {
                        CShims_send(side, all.baseAddress! + sent, all.count - sent, $0.baseAddress, Int32($0.count))
                    }
                }
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno == EAGAIN || errno == EWOULDBLOCK
                }
                // The receiver has its own copies now.
                for fd in passing { Glibc.close(fd) }
                fds.removeFirst(passing.count)
                sent += written
            }
            bytes.removeAll(keepingCapacity: true)
            sent = 0
            return true
        }

        mutating func discard() {
            for fd in fds { Glibc.close(fd) }
            fds = []
        }
    }
}
