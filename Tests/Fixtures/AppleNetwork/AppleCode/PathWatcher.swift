import Network

/// Watches paths with structured concurrency; `stop()` ends the watch, and `onEnd` runs once the
/// loop has finished (the app releases what the watch held there).
final class PathWatcher {
    private let monitor = NWPathMonitor()
    private var task: Task<Void, Never>?

    func start(onPath: @escaping (NWPath) -> Void, onEnd: @escaping () -> Void) {
        let monitor = monitor
        task = Task {
            for await path in monitor {
                onPath(path)
            }
            onEnd()
        }
    }

    func stop() {
        monitor.cancel()
    }
}
