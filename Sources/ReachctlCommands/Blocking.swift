import Dispatch
import Synchronization

/// Where calls that block (getaddrinfo, connect) run: not on Swift concurrency's few threads,
/// which a slow resolver would hold. A queue of its own targets libdispatch's overcommitting
/// pool, which starts a thread for each item that waits, so one slow lookup delays no other.
private let blockingQueue = DispatchQueue(label: "reachctl.blocking", attributes: .concurrent)

/// Runs `work`, which may block, on `blockingQueue` and answers its result.
func runBlocking<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        blockingQueue.async { continuation.resume(returning: work()) }
    }
}

/// Runs `work`, which may block, on `blockingQueue`, and answers its result, or nil when it has
/// not finished within `limit`; the thread is then left to finish alone, and its result is dropped.
func runBlocking<T: Sendable>(within limit: Duration, _ work: @escaping @Sendable () -> T) async -> T? {
    await withCheckedContinuation { continuation in
        let answer = FirstAnswer(continuation)
        let timer = Task {
            guard (try? await Task.sleep(for: limit)) != nil else { return }
            answer.resume(nil)
        }
        blockingQueue.async {
            answer.resume(work())
            timer.cancel()
        }
    }
}

/// A continuation resumed once, by whichever comes first: the work or the time limit.
private final class FirstAnswer<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T?, Never>?>

    init(_ continuation: CheckedContinuation<T?, Never>) {
        self.continuation = Mutex(continuation)
    }

    func resume(_ value: T?) {
        continuation.withLock { $0.take() }?.resume(returning: value)
    }
}
