internal import ReachdKit

extension NWPath {
    /// The library's path in Apple's names. Every decision (status, filters, which types the path
    /// uses) is the library's; this only renames. `interfaceIndex` gives a link's index by name.
    init(_ path: NetworkPath, interfaceIndex: (String) -> Int) {
        let interfaces = path.availableInterfaces.map {
            NWInterface(name: $0.name, type: NWInterface.InterfaceType($0.type), index: interfaceIndex($0.name))
        }
        let allTypes: [NWInterface.InterfaceType] = [.other, .wifi, .cellular, .wiredEthernet, .loopback]
        let status: Status = switch path.status {
        case .satisfied: .satisfied
        case .unsatisfied: .unsatisfied
        case .requiresConnection: .requiresConnection
        }
        self.init(
            status: status,
            availableInterfaces: interfaces,
            isExpensive: path.isExpensive,
            isConstrained: path.isConstrained,
            linkQuality: LinkQuality(path.linkQuality),
            supportsIPv4: path.supportsIPv4,
            supportsIPv6: path.supportsIPv6,
            supportsDNS: path.supportsDNS,
            gateways: path.gateways.map { Self.endpoint(gateway: $0, interfaces: interfaces) },
            usedInterfaceTypes: Set(allTypes.filter { $0.reachdTypes.contains(where: path.usesInterfaceType) })
        )
    }

    /// A gateway as reachd writes it (`192.0.2.1`, `fe80::1%eth0`) as Apple's endpoint, its scope
    /// the listed interface of that name where there is one.
    static func endpoint(gateway: String, interfaces: [NWInterface]) -> NWEndpoint {
        var host = NWEndpoint.Host(gateway)
        if case .ipv6(let address) = host, let scope = address.interface,
           let listed = interfaces.first(where: { $0.name == scope.name }) {
            host = .ipv6(IPv6Address(address.rawValue, listed) ?? address)
        }
        return .hostPort(host: host, port: .any)
    }
}
