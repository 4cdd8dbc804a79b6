import Foundation
import Network

/// What the app needs from a path monitor, so that tests can hand it a fake one.
protocol PathMonitoring: AnyObject {
    var pathUpdateHandler: (@Sendable (_ newPath: NWPath) -> Void)? { get set }
    var currentPath: NWPath { get }
    var queue: DispatchQueue? { get }
    func start(queue: DispatchQueue)
    func cancel()
}

extension NWPathMonitor: PathMonitoring {}

/// Tells its delegate when the app goes online or offline.
protocol ReachabilityServiceDelegate: AnyObject {
    func reachabilityService(_ service: ReachabilityService, didUpdate path: NWPath)
}

final class ReachabilityService {
    weak var delegate: ReachabilityServiceDelegate?

    private let monitor: PathMonitoring
    private let queue = DispatchQueue(label: "com.example.reachability", qos: .utility)

    init(monitor: PathMonitoring = NWPathMonitor()) {
        self.monitor = monitor
    }

    deinit {
        monitor.cancel()
    }

    var isReachable: Bool {
        monitor.currentPath.status == .satisfied
    }

    func start() {
        monitor.pathUpdateHandler = { [weak self] path in
            guard let self = self else { return }
            self.delegate?.reachabilityService(self, didUpdate: path)
        }
        monitor.start(queue: queue)
    }

    func stop() {
        monitor.cancel()
    }
}
