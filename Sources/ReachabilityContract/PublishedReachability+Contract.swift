import DBus
import ReachabilityCore

/// The properties of `io.reachd.Reachability1` that describe reachability, in the XML's order.
/// (`MonitorCount` is the registry's, not part of this value.)
extension PublishedReachability {
    public static let contractProperties: [ContractProperty<PublishedReachability>] = ContractProperty.statusProperties + [
        ContractProperty("InterfaceType", "s") { .string($0.interfaceType.rawValue) },
        ContractProperty("Interface", "s") { .string($0.interface) },
        ContractProperty("Metered", "b") { .boolean($0.metered) },
        ContractProperty("Connectivity", "s") { .string($0.connectivity.rawValue) },
        ContractProperty("Backend", "s") { .string($0.backendName) },
        ContractProperty("Source", "s") { .string($0.sourceName) },
        ContractProperty("UnsatisfiedReason", "s") { .string($0.unsatisfiedReason.rawValue) },
        ContractProperty("InterfaceVersion", "u") { _ in .uint32(PublishedReachability.interfaceVersion) },
        ContractProperty("Level", "s") { .string($0.level.rawValue) },
        ContractProperty("SupportsIPv4", "b") { .boolean($0.path.supportsIPv4) },
        ContractProperty("SupportsIPv6", "b") { .boolean($0.path.supportsIPv6) },
        ContractProperty("SupportsDNS", "b") { .boolean($0.path.supportsDNS) },
        ContractProperty("ConnectivityChecked", "b") { .boolean($0.path.connectivityChecked) },
        ContractProperty("UnderlyingInterfaceType", "s") { .string($0.path.underlyingInterfaceType?.rawValue ?? "") },
        ContractProperty("Gateways", "as") { .array(element: "s", $0.path.gateways.map(DBusValue.string)) },
        ContractProperty("AvailableInterfaces", "a(ssb)") {
            .array(element: "(ssb)", $0.path.availableInterfaces.map {
                .structure([.string($0.name), .string($0.type.rawValue), .boolean($0.hasInternetPath)])
            })
        },
    ]

    /// The D-Bus property names, in the order `changedProperties(from:)` reports them.
    public static var propertyNames: [String] { contractProperties.map(\.name) }

    /// The names of the properties whose published value differs from `old`, in table order.
    ///
    /// Derived properties are compared as published, so a change from WWAN to WiFi lists
    /// `ReachableViaWWAN` and `ReachableViaWiFi` but not `Reachable`.
    public func changedProperties(from old: PublishedReachability) -> [String] {
        Self.contractProperties.changedNames(from: old, to: self)
    }
}
