import Foundation
import Glibc
import SystemConfiguration

/// What a thread's run loop saw: the loop, whether the callback ran on its thread, and whether
/// `CFRunLoopRun()` returned.
final class RunLoopProbe: @unchecked Sendable {
    // @unchecked: every field is under `lock`; the run loop is only handed to SystemConfiguration,
    // whose run loop scheduling is thread-safe.
    struct State: Sendable {
        var flags: SCNetworkReachabilityFlags?
        var onLoopThread = false
        var returned = false
    }

    private let lock = NSLock()
    private var loopThread: pthread_t?
    private var loop: CFRunLoop?
    private var current = State()

    var state: State { lock.withLock { current } }
    var runLoop: CFRunLoop? { lock.withLock { loop } }

    func started(on runLoop: CFRunLoop) {
        lock.withLock {
            loop = runLoop
            loopThread = pthread_self()
        }
    }

    func heard(_ flags: SCNetworkReachabilityFlags) {
        lock.withLock {
            current.flags = flags
            current.onLoopThread = loopThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
        }
    }

    func loopReturned() {
        lock.withLock { current.returned = true }
    }
}
