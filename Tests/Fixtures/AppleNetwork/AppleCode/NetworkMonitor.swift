import Foundation
import Network

extension Notification.Name {
    static let connectivityStatusChanged = Notification.Name("connectivityStatusChanged")
}

/// One monitor for the whole app: start it in the app delegate, read it anywhere.
final class NetworkMonitor {
    static let shared = NetworkMonitor()

    enum ConnectionType {
        case wifi
        case cellular
        case ethernet
        case unknown
    }

    private let queue = DispatchQueue(label: "NetworkMonitor")
    private let monitor: NWPathMonitor

    private(set) var isConnected = false
    private(set) var isExpensive = false
    private(set) var connectionType: ConnectionType = .unknown
    private(set) var lastPath: NWPath?

    private init() {
        monitor = NWPathMonitor()
    }

    func startMonitoring() {
        monitor.pathUpdateHandler = { [weak self] path in
            guard let self = self else { return }
            self.isConnected = path.status == .satisfied
            self.isExpensive = path.isExpensive
            self.lastPath = path
            self.updateConnectionType(path)
            NotificationCenter.default.post(name: .connectivityStatusChanged, object: nil)
        }
        monitor.start(queue: queue)
    }

    func stopMonitoring() {
        monitor.cancel()
    }

    private func updateConnectionType(_ path: NWPath) {
        if path.usesInterfaceType(.wifi) {
            connectionType = .wifi
        } else if path.usesInterfaceType(.cellular) {
            connectionType = .cellular
        } else if path.usesInterfaceType(.wiredEthernet) {
            connectionType = .ethernet
        } else {
            connectionType = .unknown
        }
    }
}
