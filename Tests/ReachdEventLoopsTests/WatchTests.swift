import ReachdEventLoops
import Glibc
import Testing

/// Registering descriptors: what epoll refuses reaches the caller, and a
/// descriptor closed before it was unwatched does no harm.
@Suite("Watching descriptors", .timeLimit(.minutes(1)))
struct WatchTests {
    /// Runs work on a loop of its own, where `watch` and `unwatch` must run.
    actor OnLoop {
        nonisolated let loop: EventLoop
        nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }
        init() throws { loop = try EventLoop(name: "test-watch") }
        deinit { loop.shutdown() }

        func run<T: Sendable, E: Error>(_ body: @Sendable (EventLoop) throws(E) -> T) throws(E) -> T {
            try body(loop)
        }
    }

    /// A pipe whose read end reports each readable event to `readable` once.
    struct Pipe {
        let read: Int32
        let write: Int32

        init() {
            var ends: [Int32] = [-1, -1]
            precondition(pipe(&ends) == 0, "pipe")
            (read, write) = (ends[0], ends[1])
        }

        func writeByte() {
            var byte: UInt8 = 1
            precondition(Glibc.write(write, &byte, 1) == 1, "write")
        }

        func close() {
            Glibc.close(read)
            Glibc.close(write)
        }
    }

    /// Watches `descriptor`, unwatching at its first readable event and
    /// reporting it to the returned stream.
    static func watchOnce(_ descriptor: Int32, on loop: EventLoop) throws(SystemCallError) -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
        try loop.watch(descriptor, for: .readable) { ready in
            if ready.contains(.readable) {
                loop.unwatch(descriptor)
                continuation.yield()
                continuation.finish()
            }
        }
        return stream
    }

    @Test("watching a descriptor that is not open throws, naming epoll_ctl and EBADF")
    func watchRefusedIsThrown() async throws {
        let onLoop = try OnLoop()
        let error = await #expect(throws: SystemCallError.self) {
            try await onLoop.run { loop throws(SystemCallError) in
                try loop.watch(-1, for: .readable) { _ in }
            }
        }
        #expect(error?.errno == EBADF)
        #expect(error?.call.hasPrefix("epoll_ctl") == true)
    }

    @Test("unwatching a descriptor after closing it is harmless, and the loop goes on serving others")
    func unwatchAfterCloseIsHarmless() async throws {
        let onLoop = try OnLoop()
        let closed = Pipe()
        try await onLoop.run { loop throws(SystemCallError) in try loop.watch(closed.read, for: .readable) { _ in } }
        closed.close()
        await onLoop.run { loop in loop.unwatch(closed.read) }

        let open = Pipe()
        defer { open.close() }
        let events = try await onLoop.run { loop throws(SystemCallError) in try Self.watchOnce(open.read, on: loop) }
        open.writeByte()
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next() != nil, "the other pipe's byte is reported")
    }

    @Test("a descriptor number closed without unwatch and reused can be watched again")
    func reusedDescriptorNumberIsWatchedAgain() async throws {
        let onLoop = try OnLoop()
        let first = Pipe()
        let second = Pipe()
        defer { first.close(); second.close() }
        try await onLoop.run { loop throws(SystemCallError) in try loop.watch(first.read, for: .readable) { _ in } }
        // dup2 closes first.read's pipe, which drops its epoll registration,
        // and gives the number to the second pipe's read end.
        #expect(dup2(second.read, first.read) == first.read)
        let events = try await onLoop.run { loop throws(SystemCallError) in try Self.watchOnce(first.read, on: loop) }
        second.writeByte()
        var iterator = events.makeAsyncIterator()
        #expect(await iterator.next() != nil, "the byte written to the second pipe is reported under the reused number")
    }
}
