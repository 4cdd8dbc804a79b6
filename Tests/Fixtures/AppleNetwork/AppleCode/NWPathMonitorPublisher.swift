import Foundation
import Network

/// Network information attached to every event the SDK sends, written the way an analytics SDK
/// for Apple's platforms writes it: an `NWPathMonitor` publishing into a value type, reading the
/// iOS 26 members only where the compiler and the OS have them.
internal struct NetworkConnectionInfo: Equatable {
    internal enum Reachability: String {
        case yes
        case maybe
        case no
    }

    internal enum Interface: String {
        case wifi
        case wiredEthernet
        case cellular
        case loopback
        case other
    }

    internal enum LinkQuality: String {
        case unknown
        case minimal
        case moderate
        case good
    }

    let reachability: Reachability
    let availableInterfaces: [Interface]?
    let supportsIPv4: Bool?
    let supportsIPv6: Bool?
    let isExpensive: Bool?
    let isConstrained: Bool?
    let linkQuality: LinkQuality?
    let isUltraConstrained: Bool?
}

internal final class NWPathMonitorPublisher {
    private static let defaultQueue = DispatchQueue(
        label: "com.example.sdk.nw-path-monitor-publisher",
        target: .global(qos: .utility)
    )

    private let monitor: NWPathMonitor
    private let queue: DispatchQueue

    internal init(monitor: NWPathMonitor = .init(), queue: DispatchQueue = NWPathMonitorPublisher.defaultQueue) {
        self.monitor = monitor
        self.queue = queue
    }

    internal func publish(to receiver: @escaping (NetworkConnectionInfo) -> Void) {
        monitor.pathUpdateHandler = { path in
            receiver(NetworkConnectionInfo(path))
        }
        monitor.start(queue: queue)
    }

    internal func cancel() {
        monitor.cancel()
    }
}

extension NetworkConnectionInfo {
    init(_ path: NWPath) {
        var linkQuality: LinkQuality? = nil
        var isUltraConstrained: Bool? = nil
        #if compiler(>=6.2)
        if #available(iOS 26.0, tvOS 26.0, macOS 26.0, watchOS 26.0, visionOS 26.0, *) {
            linkQuality = LinkQuality(path.linkQuality)
            isUltraConstrained = path.isUltraConstrained
        }
        #endif

        self.init(
            reachability: NetworkConnectionInfo.Reachability(path.status),
            availableInterfaces: Array(fromInterfaceTypes: path.availableInterfaces.map { $0.type }),
            supportsIPv4: path.supportsIPv4,
            supportsIPv6: path.supportsIPv6,
            isExpensive: path.isExpensive,
            isConstrained: path.isConstrained,
            linkQuality: linkQuality,
            isUltraConstrained: isUltraConstrained
        )
    }
}

extension NetworkConnectionInfo.Reachability {
    init(_ status: NWPath.Status) {
        switch status {
        case .satisfied: self = .yes
        case .requiresConnection: self = .maybe
        case .unsatisfied: self = .no
        @unknown default: self = .maybe
        }
    }
}

#if compiler(>=6.2)
extension NetworkConnectionInfo.LinkQuality {
    @available(iOS 26.0, tvOS 26.0, macOS 26.0, watchOS 26.0, visionOS 26.0, *)
    init(_ quality: NWPath.LinkQuality) {
        switch quality {
        case .unknown: self = .unknown
        case .minimal: self = .minimal
        case .moderate: self = .moderate
        case .good: self = .good
        @unknown default: self = .unknown
        }
    }
}
#endif

extension Array where Element == NetworkConnectionInfo.Interface {
    init?(fromInterfaceTypes interfaceTypes: [NWInterface.InterfaceType]) {
        guard !interfaceTypes.isEmpty else {
            return nil
        }
        self = interfaceTypes.map { interfaceType in
            switch interfaceType {
            case .wifi: return .wifi
            case .wiredEthernet: return .wiredEthernet
            case .cellular: return .cellular
            case .loopback: return .loopback
            case .other: return .other
            @unknown default: return .other
            }
        }
    }
}
