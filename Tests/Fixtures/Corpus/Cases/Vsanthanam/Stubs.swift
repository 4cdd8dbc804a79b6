import Dispatch
import Network
import Foundation

// What NetworkMonitor.swift takes from the rest of NetworkReachability (NetworkMonitorDelegate.swift,
// DispatchQueue+NetworkMonitor.swift, Notification+NetworkReachability.swift).
public protocol NetworkMonitorDelegate: AnyObject {
    func networkMonitor(_ monitor: NetworkMonitor, didUpdateNetworkPath networkPath: NWPath)
}

extension DispatchQueue {
    static let networkMonitorQueue = DispatchQueue(label: "networkreachability.networkmonitor")
}

extension Notification.Name {
    static let networkPathChanged = Notification.Name("networkPathChanged")
}
