import Network

/// Network paths as an async sequence, for SwiftUI's `.task { }` and other async code.
enum ConnectivityStream {
    /// Returns once the device has a usable path.
    static func waitUntilOnline() async {
        for await path in NWPathMonitor() where path.status == .satisfied {
            return
        }
    }

    /// Calls `body` with every path, the current one first, until the task is cancelled.
    static func observe(_ monitor: NWPathMonitor = NWPathMonitor(), _ body: (NWPath) -> Void) async {
        for await path in monitor {
            body(path)
        }
    }
}
