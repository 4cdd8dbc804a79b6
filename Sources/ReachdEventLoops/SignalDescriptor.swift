import CReachdEventLoops
import Glibc

/// Signals delivered as readable events on an event loop (signalfd), the
/// way sd-event's signal sources work.
///
/// The signals are blocked in the calling thread and in every thread it
/// starts afterwards, so no handler interrupts arbitrary code and no helper
/// thread has to wait for them.
///
/// ```swift
/// let signals = try SignalDescriptor(blocking: [SIGTERM, SIGINT])  // before other threads start
/// signals.watch(on: loop) { signal in ... }                       // on the loop's thread
/// ```
public struct SignalDescriptor: Sendable {
    private let descriptor: Int32

    /// Call before any other thread exists: threads started earlier keep the
    /// signals unblocked and the kernel may deliver them there.
    public init(blocking signals: [Int32]) throws(SystemCallError) {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        descriptor = try systemCall("signalfd") { signalfd(-1, &set, Int32(SFD_CLOEXEC | SFD_NONBLOCK)) }
    }

    /// Calls `received` with each signal's number as it arrives. Must run on
    /// `loop`'s thread; the descriptor stays open for the life of the process.
    /// Throws when the loop cannot watch it: then the signals stay blocked
    /// and nobody would hear them, so the caller should not carry on.
    public func watch(on loop: EventLoop, _ received: @escaping (Int32) -> Void) throws(SystemCallError) {
        let descriptor = descriptor
        try loop.watch(descriptor, for: .readable) { _ in
            var information = signalfd_siginfo()
            let size = MemoryLayout<signalfd_siginfo>.size
            while read(descriptor, &information, size) == size {
                received(Int32(information.ssi_signo))
            }
        }
    }
}
