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
