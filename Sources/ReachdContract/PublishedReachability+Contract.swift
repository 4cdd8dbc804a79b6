import ReachdDBus
import ReachdCore

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
        ContractProperty("Details", "a{sv}", read: { $0.details.dbusValue(includingSince: true) },
                         compared: { $0.details.dbusValue(includingSince: false) }),
        ContractProperty("CaptivePortalURL", "s") { .string($0.captivePortalURL) },
        ContractProperty("LinkQuality", "s") { .string($0.linkQuality.rawValue) },
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

extension ReachabilityDetails {
    /// `Details` as D-Bus carries it: contract 2 §1.5's keys, the ones known, in a fixed order.
    func dbusValue(includingSince: Bool) -> DBusValue {
        var entries: [(String, DBusValue)] = []
        func add(_ key: String, _ value: DBusValue?) {
            if let value { entries.append((key, value)) }
        }
        add("nm-state", networkManagerState.map { .uint32($0) })
        add("nm-connectivity", networkManagerConnectivity.map { .uint32($0) })
        add("nm-check-live", networkManagerCheckLive.map { .boolean($0) })
        add("nm-startup", networkManagerStartup.map { .boolean($0) })
        add("nm-metered", networkManagerMetered.map { .uint32($0) })
        add("path-device-controlled", pathDeviceControlled.map { .boolean($0) })
        for (family, path) in [("path4", path4), ("path6", path6)] {
            guard let path else { continue }
            if !path.interface.isEmpty { add("\(family)-interface", .string(path.interface)) }
            add("\(family)-gateway", path.gateway.map { .string($0) })
            if path.table != 0 { add("\(family)-table", .uint32(path.table)) }
            add("\(family)-error", path.error.map { .string($0) })
        }
        add("networkd-online", networkdOnlineState.map { .string($0) })
        if networkdOnlineState != nil {
            add("networkd-link-online", .dictionary(key: "s", value: "s", networkdLinkOnlineStates.sorted { $0.key < $1.key }
                .map { DictionaryEntry(.string($0.key), .string($0.value)) }))
        }
        add("connman-state", connmanState.map { .string($0) })
        add("connman-offline-mode", connmanOfflineMode.map { .boolean($0) })
        add("connman-service-type", connmanServiceType.map { .string($0) })
        add("connman-service-state", connmanServiceState.map { .string($0) })
        add("connman-service-error", connmanServiceError.map { .string($0) })
        add("connman-ipv4ll", connmanIPv4LinkLocal.map { .boolean($0) })
        add("override-rule", overrideRule.map { .string($0) })
        if includingSince { add("override-since-usec", overrideSinceMicroseconds.map { .uint64($0) }) }
        add("check-source", checkSource.map { .string($0) })
        add("check-uri", checkURI.map { .string($0) })
        add("check-pending", checkPending.map { .boolean($0) })
        add("check-runners", checkRunners.map { .array(element: "s", $0.map { .string($0.rawValue) }) })
        add("no-system-bus", noSystemBus.map { .boolean($0) })
        add("system-bus-awaited", systemBusAwaited.map { .string($0) })
        add("check-http-status", checkHTTPStatus.map { .uint32($0) })
        if includingSince { add("check-usec", checkMicroseconds.map { .uint64($0) }) }
        if includingSince { add("link-signal", linkSignal.map { .byte($0) }) }
        add("link-signal-source", linkSignalSource.map { .string($0) })
        add("link-speed-mbps", linkSpeedMegabits.map { .uint32($0) })
        return .dictionary(key: "s", value: "v", entries.map { DictionaryEntry(.string($0.0), .variant($0.1)) })
    }
}
