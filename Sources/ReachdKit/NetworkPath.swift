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
    /// Apple's Low Data Mode is a choice the user makes per network; Linux's nearest is a metered
    /// setting the user made: NetworkManager's `Metered` `yes` (`connection.metered=yes`, GNOME's
    /// "has data limits"), never its guess (`guess-yes`: every modem, an Android hotspot), which
    /// only `isExpensive` carries. False without NetworkManager.
    public var isConstrained: Bool
    /// How good the link under the path is (`NWPath.linkQuality`, iOS 26): to tune an algorithm's
    /// starting values, never to gate a connection. The service's `LinkQuality` (the Wi-Fi or
    /// cellular signal, the Ethernet speed; docs/mapping.md), `.unknown` where nothing is measured.
    public var linkQuality: LinkQuality
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
        // A user's own metered setting, not NetworkManager's guess (`nm-metered` 1).
        isConstrained = update.isMetered && update.networkManagerMetered == .yes
        // The one place the link quality is read from reachd's values (`LinkQuality`).
        linkQuality = update.linkQuality
        apply(filter)
    }

    /// A filtered monitor's path is the path over the interfaces it accepts, and every member says
    /// so: it is satisfied only through an accepted interface that has an Internet path while the
    /// network as a whole is at least routable, and describes nothing of an excluded interface.
    ///
    /// - The deciding path (its link, and under a VPN the medium) accepted: the path as reachd
    ///   published it, with only the accepted interfaces listed.
    /// - Excluded, and another accepted interface has an Internet path: satisfied through that one.
    ///   reachd publishes families, DNS, gateways, metering and validation for the deciding path
    ///   only, so of that interface only what is its own is said: its type, the gateways scoped to
    ///   it (`fe80::1%wwan0`), expensive (and `isWWAN`) when it is a modem; the families and DNS
    ///   unknown (false), the level routable.
    /// - Otherwise, and whenever no accepted interface is up, unsatisfied: no interface type,
    ///   gateways, families, DNS or cost; `noLink` with no accepted interface up, else `noRoute`
    ///   (a reason of the whole network's, such as `disabled` or `portal`, stays).
    private mutating func apply(_ filter: InterfaceFilter) {
        let acceptsType: (InterfaceType) -> Bool
        switch filter {
        case .any: return
        case .required(let type): acceptsType = { $0 == type }
        case .prohibited(let types): acceptsType = { !types.contains($0) }
        }
        availableInterfaces = availableInterfaces.filter { acceptsType($0.type) }
        // Nothing heard yet: nothing to describe.
        guard reachabilityStatus != .unknown else { return }
        let decidingExcluded = (interfaceType != .none && !acceptsType(interfaceType))
            || underlyingInterfaceType.map { !acceptsType($0) } == true
        let through = availableInterfaces.first(where: \.hasInternetPath)
        let wasSatisfied = status == .satisfied && level >= .routable
        if !decidingExcluded, wasSatisfied ? through != nil : !availableInterfaces.isEmpty { return }
        let gatewaysOfThrough = through.map { interface in gateways.filter { $0.hasSuffix("%" + interface.name) } } ?? []
        forgetDecidingPath()
        if wasSatisfied, let through {
            interfaceType = through.type
            isExpensive = through.type == .wwan
            gateways = gatewaysOfThrough
            level = .routable
            flags = through.type == .wwan ? [.reachable, .isWWAN] : [.reachable]
            reachabilityStatus = NetworkReachabilityStatus(flags: flags)
        } else {
            status = .unsatisfied
            // A reason of the network's own (off, a portal, connecting) stays; "no route" is
            // "no link" when no accepted interface is up.
            if wasSatisfied || [.none, .noRoute, .noLink].contains(unsatisfiedReason) {
                unsatisfiedReason = availableInterfaces.isEmpty ? .noLink : .noRoute
            }
            level = min(level, availableInterfaces.isEmpty ? .none : .link)
            flags = []
            reachabilityStatus = .notReachable
        }
    }

    /// What reachd published of the deciding path, which a filter excluded.
    private mutating func forgetDecidingPath() {
        interfaceType = .none
        underlyingInterfaceType = nil
        isExpensive = false
        supportsIPv4 = false
        supportsIPv6 = false
        supportsDNS = false
        gateways = []
        isValidated = false
        isBehindCaptivePortal = false
        isConstrained = false
        linkQuality = .unknown
    }
}
