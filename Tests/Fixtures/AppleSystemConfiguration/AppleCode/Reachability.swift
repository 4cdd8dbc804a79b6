// Written for this test the way Apple-platform apps write reachability with SystemConfiguration
// (the shape of the widely copied Reachability.swift): a class over SetCallback and
// SetDispatchQueue whose context retains a weak box, so the target does not keep the class alive.
// Compiled unmodified on Linux: no platform conditions.

import Foundation
import SystemConfiguration

public enum ReachabilityError: Error {
    case failedToCreateWithAddress(sockaddr)
    case failedToCreateWithHostname(String)
    case unableToSetCallback(Int32)
    case unableToSetDispatchQueue(Int32)
    case unableToGetFlags(Int32)
}

public extension Notification.Name {
    static let reachabilityChanged = Notification.Name("reachabilityChanged")
}

public final class Reachability: @unchecked Sendable {
    public typealias NetworkReachable = (Reachability) -> Void
    public typealias NetworkUnreachable = (Reachability) -> Void

    public enum Connection: CustomStringConvertible {
        case unavailable, wifi, cellular

        public var description: String {
            switch self {
            case .cellular: return "Cellular"
            case .wifi: return "WiFi"
            case .unavailable: return "No Connection"
            }
        }
    }

    public var whenReachable: NetworkReachable?
    public var whenUnreachable: NetworkUnreachable?
    public var allowsCellularConnection = true
    public let notificationCenter: NotificationCenter = NotificationCenter.default

    public var connection: Connection {
        guard let flags = flags else { return .unavailable }
        guard flags.isReachableFlagSet else { return .unavailable }
        if flags.isOnWWANFlagSet {
            return allowsCellularConnection ? .cellular : .unavailable
        }
        return .wifi
    }

    fileprivate(set) var notifierRunning = false
    fileprivate let reachabilityRef: SCNetworkReachability
    fileprivate let reachabilitySerialQueue: DispatchQueue
    fileprivate let notificationQueue: DispatchQueue?
    fileprivate(set) var flags: SCNetworkReachabilityFlags? {
        didSet {
            guard flags != oldValue else { return }
            notifyReachabilityChanged()
        }
    }

    required public init(reachabilityRef: SCNetworkReachability,
                         queueQoS: DispatchQoS = .default,
                         targetQueue: DispatchQueue? = nil,
                         notificationQueue: DispatchQueue? = .main) {
        self.reachabilityRef = reachabilityRef
        self.reachabilitySerialQueue = DispatchQueue(label: "uk.co.example.reachability", qos: queueQoS, target: targetQueue)
        self.notificationQueue = notificationQueue
    }

    public convenience init(hostname: String,
                            queueQoS: DispatchQoS = .default,
                            targetQueue: DispatchQueue? = nil,
                            notificationQueue: DispatchQueue? = .main) throws {
        guard let ref = SCNetworkReachabilityCreateWithName(nil, hostname) else {
            throw ReachabilityError.failedToCreateWithHostname(hostname)
        }
        self.init(reachabilityRef: ref, queueQoS: queueQoS, targetQueue: targetQueue, notificationQueue: notificationQueue)
    }

    public convenience init(queueQoS: DispatchQoS = .default,
                            targetQueue: DispatchQueue? = nil,
                            notificationQueue: DispatchQueue? = .main) throws {
        var zeroAddress = sockaddr()
        zeroAddress.sa_len = UInt8(MemoryLayout<sockaddr>.size)
        zeroAddress.sa_family = sa_family_t(AF_INET)

        guard let ref = SCNetworkReachabilityCreateWithAddress(nil, &zeroAddress) else {
            throw ReachabilityError.failedToCreateWithAddress(zeroAddress)
        }
        self.init(reachabilityRef: ref, queueQoS: queueQoS, targetQueue: targetQueue, notificationQueue: notificationQueue)
    }

    deinit {
        stopNotifier()
    }
}

public extension Reachability {
    func startNotifier() throws {
        guard !notifierRunning else { return }

        let callback: SCNetworkReachabilityCallBack = { (reachability, flags, info) in
            guard let info = info else { return }
            // The box is retained by the target; the box holds the Reachability weakly.
            let weakBox = Unmanaged<ReachabilityWeakBox>.fromOpaque(info).takeUnretainedValue()
            weakBox.reachability?.flags = flags
        }

        let weakBox = ReachabilityWeakBox(reachability: self)
        let opaqueBox = Unmanaged<ReachabilityWeakBox>.passUnretained(weakBox).toOpaque()

        var context = SCNetworkReachabilityContext(
            version: 0,
            info: UnsafeMutableRawPointer(opaqueBox),
            retain: { (info: UnsafeRawPointer) -> UnsafeRawPointer in
                let unmanagedBox = Unmanaged<ReachabilityWeakBox>.fromOpaque(info)
                _ = unmanagedBox.retain()
                return UnsafeRawPointer(unmanagedBox.toOpaque())
            },
            release: { (info: UnsafeRawPointer) -> Void in
                let unmanagedBox = Unmanaged<ReachabilityWeakBox>.fromOpaque(info)
                unmanagedBox.release()
            },
            copyDescription: { (info: UnsafeRawPointer) -> Unmanaged<CFString> in
                let unmanagedBox = Unmanaged<ReachabilityWeakBox>.fromOpaque(info)
                let weakBox = unmanagedBox.takeUnretainedValue()
                let description = weakBox.reachability?.description ?? "nil"
                return Unmanaged.passRetained(description as CFString)
            }
        )

        if !SCNetworkReachabilitySetCallback(reachabilityRef, callback, &context) {
            stopNotifier()
            throw ReachabilityError.unableToSetCallback(SCError())
        }

        if !SCNetworkReachabilitySetDispatchQueue(reachabilityRef, reachabilitySerialQueue) {
            stopNotifier()
            throw ReachabilityError.unableToSetDispatchQueue(SCError())
        }

        try setReachabilityFlags()

        notifierRunning = true
    }

    func stopNotifier() {
        defer { notifierRunning = false }

        SCNetworkReachabilitySetCallback(reachabilityRef, nil, nil)
        SCNetworkReachabilitySetDispatchQueue(reachabilityRef, nil)
    }

    var description: String {
        return flags?.description ?? "unavailable flags"
    }

    /// The target's own description, with the context's description in it.
    var targetDescription: String {
        return "\(reachabilityRef)"
    }
}

fileprivate extension Reachability {
    func setReachabilityFlags() throws {
        try reachabilitySerialQueue.sync { [unowned self] in
            var flags = SCNetworkReachabilityFlags()
            if !SCNetworkReachabilityGetFlags(self.reachabilityRef, &flags) {
                self.stopNotifier()
                throw ReachabilityError.unableToGetFlags(SCError())
            }
            self.flags = flags
        }
    }

    func notifyReachabilityChanged() {
        let notify: @Sendable () -> Void = { [weak self] in
            guard let self = self else { return }
            self.connection != .unavailable ? self.whenReachable?(self) : self.whenUnreachable?(self)
            self.notificationCenter.post(name: .reachabilityChanged, object: self)
        }
        notificationQueue?.async(execute: notify) ?? notify()
    }
}

extension SCNetworkReachabilityFlags {
    var isReachableFlagSet: Bool { contains(.reachable) }
    var isOnWWANFlagSet: Bool { contains(.isWWAN) }
    var isConnectionRequiredFlagSet: Bool { contains(.connectionRequired) }
    var isLocalAddressFlagSet: Bool { contains(.isLocalAddress) }
    var isDirectFlagSet: Bool { contains(.isDirect) }

    var description: String {
        let W = isOnWWANFlagSet ? "W" : "-"
        let R = isReachableFlagSet ? "R" : "-"
        let c = isConnectionRequiredFlagSet ? "c" : "-"
        let l = isLocalAddressFlagSet ? "l" : "-"
        let d = isDirectFlagSet ? "d" : "-"
        return "\(W)\(R) \(c)\(l)\(d)"
    }
}

/// Holds the Reachability weakly, so that the target (which retains its context's info) does not
/// keep the Reachability alive: the retain cycle that context's retain and release break.
private class ReachabilityWeakBox {
    weak var reachability: Reachability?
    init(reachability: Reachability) {
        self.reachability = reachability
    }
}
