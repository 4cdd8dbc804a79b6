/// What `NWPath` tells an app on Apple's platforms, from reachd: whether the network is usable
/// and why not, how far it goes (`level`), the address families, DNS, whether it is expensive,
/// the interfaces that could carry a path and the gateways.
///
/// ```swift
/// let path = NetworkPathMonitor().currentPath
/// if path.status == .unsatisfied { print("offline:", path.unsatisfiedReason.rawValue) }
/// if path.usesInterfaceType(.wifi) && !path.isExpensive { startBackup() }
/// ```
public struct NetworkPath: Sendable, Hashable {
    /// `NWPath.Status`.
    public enum Status: Sendable, Hashable {
        case satisfied, unsatisfied, requiresConnection
    }

    public typealias UnsatisfiedReason = ReachdCore.UnsatisfiedReason
    public typealias Level = NetworkLevel
    public typealias Interface = PathFacts.AvailableInterface

    public var status: Status
    public var unsatisfiedReason: UnsatisfiedReason
    public var level: Level
    /// `Metered`: the connection costs by volume (`NWPath.isExpensive`).
    public var isExpensive: Bool
    /// Always false: Linux has no Low Data Mode.
    public var isConstrained: Bool { false }
    public var supportsIPv4: Bool
    public var supportsIPv6: Bool
    public var supportsDNS: Bool
    /// NetworkManager checked, and found the Internet (Android's VALIDATED).
    public var isValidated: Bool
    public var isBehindCaptivePortal: Bool
    public var availableInterfaces: [Interface]
    public var gateways: [String]
    public var interfaceType: InterfaceType
    /// The medium under a VPN path.
    public var underlyingInterfaceType: InterfaceType?
    public var source: ReachabilitySource?
    public var flags: ReachabilityFlags
    public var reachabilityStatus: NetworkReachabilityStatus

    /// Whether the path uses an interface of `type` (directly, or under a VPN).
    public func usesInterfaceType(_ type: InterfaceType) -> Bool {
        interfaceType == type || underlyingInterfaceType == type
    }

    /// Which interfaces a monitor accepts.
    public enum InterfaceFilter: Sendable, Hashable {
        case any
        case required(InterfaceType)
        case prohibited([InterfaceType])
    }

    /// The path reachd's values describe, seen through `filter`.
    ///
    /// Against a reachd older than the path API (`InterfaceVersion` 1) what is missing is
    /// derived: the level from Status, the source from Backend, the rest false or empty.
    public init(_ update: ReachabilityUpdate, filter: InterfaceFilter = .any) {
        var update = update
        if update.interfaceVersion < 2 {
            update.level = switch update.status {
            case .unknown: .unknown
            case .notReachable: .none
            default: .routable
            }
            update.source = update.backend.map { $0 == .networkmanager ? .networkManager : .netlink }
            update.unsatisfiedReason = update.status.isReachable ? .none : update.status == .unknown ? .unknown : .noRoute
        }
        status = if update.status.isReachable {
            .satisfied
        } else if update.flags.contains(.connectionRequired),
                  !update.flags.isDisjoint(with: [.connectionOnDemand, .connectionOnTraffic]),
                  !update.flags.contains(.interventionRequired) {
            .requiresConnection
        } else {
            .unsatisfied
        }
        unsatisfiedReason = update.unsatisfiedReason
        level = update.level
        isExpensive = update.isMetered
        supportsIPv4 = update.path.supportsIPv4
        supportsIPv6 = update.path.supportsIPv6
        supportsDNS = update.path.supportsDNS
        isValidated = update.connectivity == .full && update.path.connectivityChecked
        isBehindCaptivePortal = update.connectivity == .portal
        availableInterfaces = update.path.availableInterfaces
        gateways = update.path.gateways
        interfaceType = update.interfaceType
        underlyingInterfaceType = update.path.underlyingInterfaceType
        source = update.source
        flags = update.flags
        reachabilityStatus = update.status
        apply(filter)
    }

    /// A filtered monitor is satisfied only through an interface it accepts that has an
    /// Internet path, while the network as a whole is at least routable.
    private mutating func apply(_ filter: InterfaceFilter) {
        let accepts: (Interface) -> Bool
        switch filter {
        case .any: return
        case .required(let type): accepts = { $0.type == type }
        case .prohibited(let types): accepts = { !types.contains($0.type) }
        }
        availableInterfaces = availableInterfaces.filter(accepts)
        guard status == .satisfied else { return }
        if let through = availableInterfaces.first(where: \.hasInternetPath), level >= .routable {
            interfaceType = through.type
        } else {
            status = .unsatisfied
            unsatisfiedReason = .noRoute
        }
    }
}
