// Written for this test the way AFNetworking's AFNetworkReachabilityManager works, in Swift: a
// manager for the default route (a zero sockaddr_in), a domain or an address, scheduled on the
// main run loop in the common modes, with a status block and a notification.
// Compiled unmodified on Linux: no platform conditions.

import Foundation
import SystemConfiguration

public enum AFNetworkReachabilityStatus: Int {
    case unknown = -1
    case notReachable = 0
    case reachableViaWWAN = 1
    case reachableViaWiFi = 2
}

public extension Notification.Name {
    static let AFNetworkingReachabilityDidChange = Notification.Name("com.alamofire.networking.reachability.change")
}

public let AFNetworkingReachabilityNotificationStatusItem = "AFNetworkingReachabilityNotificationStatusItem"

/// AFNetworking's reading of the flags.
func AFNetworkReachabilityStatusForFlags(_ flags: SCNetworkReachabilityFlags) -> AFNetworkReachabilityStatus {
    let isReachable = flags.contains(.reachable)
    let needsConnection = flags.contains(.connectionRequired)
    let canConnectAutomatically = flags.contains(.connectionOnDemand) || flags.contains(.connectionOnTraffic)
    let canConnectWithoutUserInteraction = canConnectAutomatically && !flags.contains(.interventionRequired)
    let isNetworkReachable = isReachable && (!needsConnection || canConnectWithoutUserInteraction)

    if !isNetworkReachable {
        return .notReachable
    } else if flags.contains(.isWWAN) {
        return .reachableViaWWAN
    } else {
        return .reachableViaWiFi
    }
}

public final class AFNetworkReachabilityManager: @unchecked Sendable {
    public typealias StatusBlock = (AFNetworkReachabilityStatus) -> Void

    public static let shared: AFNetworkReachabilityManager = AFNetworkReachabilityManager.manager()!

    public private(set) var networkReachabilityStatus: AFNetworkReachabilityStatus = .unknown
    public private(set) var flags = SCNetworkReachabilityFlags()
    private let networkReachability: SCNetworkReachability
    private var networkReachabilityStatusBlock: StatusBlock?

    public var isReachable: Bool { isReachableViaWWAN || isReachableViaWiFi }
    public var isReachableViaWWAN: Bool { networkReachabilityStatus == .reachableViaWWAN }
    public var isReachableViaWiFi: Bool { networkReachabilityStatus == .reachableViaWiFi }

    public init(reachability: SCNetworkReachability) {
        networkReachability = reachability
    }

    public static func manager(forDomain domain: String) -> AFNetworkReachabilityManager? {
        guard let reachability = SCNetworkReachabilityCreateWithName(kCFAllocatorDefault, domain) else { return nil }
        return AFNetworkReachabilityManager(reachability: reachability)
    }

    public static func manager(forAddress address: UnsafePointer<sockaddr>) -> AFNetworkReachabilityManager? {
        guard let reachability = SCNetworkReachabilityCreateWithAddress(kCFAllocatorDefault, address) else { return nil }
        return AFNetworkReachabilityManager(reachability: reachability)
    }

    /// The default route: AFNetworking's zero IPv4 address.
    public static func manager() -> AFNetworkReachabilityManager? {
        var address = sockaddr_in()
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        address.sin_family = sa_family_t(AF_INET)
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { manager(forAddress: $0) }
        }
    }

    deinit {
        stopMonitoring()
    }

    public func setReachabilityStatusChangeBlock(_ block: StatusBlock?) {
        networkReachabilityStatusBlock = block
    }

    public func startMonitoring() {
        stopMonitoring()

        var context = SCNetworkReachabilityContext(
            version: 0,
            info: Unmanaged.passUnretained(self).toOpaque(),
            retain: nil,
            release: nil,
            copyDescription: nil
        )
        let callback: SCNetworkReachabilityCallBack = { _, flags, info in
            guard let info = info else { return }
            let manager = Unmanaged<AFNetworkReachabilityManager>.fromOpaque(info).takeUnretainedValue()
            manager.update(flags)
        }
        SCNetworkReachabilitySetCallback(networkReachability, callback, &context)
        SCNetworkReachabilityScheduleWithRunLoop(networkReachability, CFRunLoopGetMain(), CFRunLoopMode.commonModes.rawValue)
        // As AFNetworking's startMonitoring: an address target calls back only at changes, so the
        // first status is read in the background and posted on the main queue.
        let target = networkReachability
        DispatchQueue.global(qos: .background).async {
            var flags = SCNetworkReachabilityFlags()
            if SCNetworkReachabilityGetFlags(target, &flags) {
                DispatchQueue.main.async { self.update(flags) }
            }
        }
    }

    public func stopMonitoring() {
        SCNetworkReachabilityUnscheduleFromRunLoop(networkReachability, CFRunLoopGetMain(), CFRunLoopMode.commonModes.rawValue)
    }

    public var localizedNetworkReachabilityStatusString: String {
        switch networkReachabilityStatus {
        case .notReachable: return NSLocalizedString("Not Reachable", comment: "")
        case .reachableViaWWAN: return NSLocalizedString("Reachable via WWAN", comment: "")
        case .reachableViaWiFi: return NSLocalizedString("Reachable via WiFi", comment: "")
        case .unknown: return NSLocalizedString("Unknown", comment: "")
        }
    }

    private func update(_ flags: SCNetworkReachabilityFlags) {
        let status = AFNetworkReachabilityStatusForFlags(flags)
        self.flags = flags
        networkReachabilityStatus = status
        networkReachabilityStatusBlock?(status)
        NotificationCenter.default.post(name: .AFNetworkingReachabilityDidChange, object: self,
                                        userInfo: [AFNetworkingReachabilityNotificationStatusItem: status.rawValue])
    }
}
