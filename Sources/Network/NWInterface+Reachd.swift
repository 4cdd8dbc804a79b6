internal import ReachdKit

/// Apple's five interface types against reachd's finer ones: a translation of names, in one place,
/// for the paths reachd sends and for the filters a monitor passes to it.
extension NWInterface.InterfaceType {
    /// Apple's name for reachd's type. `.none` (no path) has no Apple name: callers never ask.
    init(_ type: ReachdKit.InterfaceType) {
        switch type {
        case .wifi: self = .wifi
        case .wwan: self = .cellular
        case .ethernet: self = .wiredEthernet
        case .vpn, .bluetooth, .other, .none: self = .other
        }
    }

    /// The reachd types this Apple type stands for. Loopback stands for none: reachd never lists
    /// loopback as an interface a path could use.
    var reachdTypes: [ReachdKit.InterfaceType] {
        switch self {
        case .wifi: [.wifi]
        case .cellular: [.wwan]
        case .wiredEthernet: [.ethernet]
        case .other: [.vpn, .bluetooth, .other]
        case .loopback: []
        }
    }

    /// The library's filter for `NWPathMonitor(requiredInterfaceType:)`: one reachd type where
    /// there is one, else every other type prohibited (the same set of interfaces).
    static func filter(requiring type: Self) -> NetworkPath.InterfaceFilter {
        let accepted = type.reachdTypes
        if accepted.count == 1 { return .required(accepted[0]) }
        return .prohibited(ReachdKit.InterfaceType.allCases.filter { !accepted.contains($0) })
    }

    /// The library's filter for `NWPathMonitor(prohibitedInterfaceTypes:)`.
    static func filter(prohibiting types: [Self]) -> NetworkPath.InterfaceFilter {
        .prohibited(types.flatMap(\.reachdTypes))
    }
}
