import Network

/// Labels the connection for the UI and for analytics, from a monitor the caller configures
/// (the app passes `NWPathMonitor(requiredInterfaceType: .wifi)` for its Wi-Fi-only downloads).
final class ConnectionTypeObserver {
    enum ConnectionType: String {
        case wifi
        case cellular
        case ethernet
        case other
        case offline
    }

    private let monitor: NWPathMonitor
    private let queue = DispatchQueue(label: "ConnectionTypeObserver")

    init(monitor: NWPathMonitor) {
        self.monitor = monitor
    }

    func start(onChange: @escaping (ConnectionType) -> Void) {
        monitor.pathUpdateHandler = { path in
            onChange(Self.connectionType(of: path))
        }
        monitor.start(queue: queue)
    }

    func stop() {
        monitor.cancel()
    }

    static func connectionType(of path: NWPath) -> ConnectionType {
        if path.usesInterfaceType(.wifi) {
            return .wifi
        } else if path.usesInterfaceType(.cellular) {
            return .cellular
        } else if path.usesInterfaceType(.wiredEthernet) {
            return .ethernet
        } else if path.status == .satisfied {
            return .other
        }
        return .offline
    }
}
