import CReachdMemory
import ReachdEventLoops
import Glibc

/// reachctl's entry point, for the `reachctl` executable and for `reachd` run by the name
/// `reachctl` (one program on an image: issue 45). Its commands run on one event loop on the
/// main thread, made Swift concurrency's main and default executor as reachd's is
/// (EventLoop+Executors.swift): a `watch`
/// or `wait` with nothing to do then sleeps in epoll_wait. On Swift's own executors, libdispatch's
/// worker pool re-arms a timer every second for the life of the process (four system calls a
/// second, idle), which would be the whole idle cost of reachctl over the bus, and of reachd's
/// engine run inside it.
public enum ReachctlProgram {
    public static func main() -> Never {
        // Any connection may be sent a message of up to 32 MiB: a unicast signal reaches
        // `reachctl watch` whatever it subscribed to. After the first such buffer is freed glibc
        // raises its mmap threshold and serves the next from its heap, which it keeps: a second
        // 30 MiB signal left `watch` 30 MiB larger for good. A fixed threshold, as reachd's,
        // keeps large buffers in mappings of their own, returned when freed. (Not in ReachdKit:
        // the process is the app's.)
        _ = CMemory_set_mmap_threshold(128 * 1024)
        let loop: EventLoop
        do {
            loop = try EventLoop(name: "reachctl", thread: .caller)
        } catch {
            Output.error("cannot start: \(error)")
            exit(1)
        }
        _ = EventLoop.installAsMainAndDefaultExecutor(loop)
        // The preference keeps the command on the loop where the loop cannot be Swift's executor.
        Task(executorPreference: loop) {
            await Reachctl.main()
            exit(0)
        }
        loop.run()
        exit(0)
    }
}
