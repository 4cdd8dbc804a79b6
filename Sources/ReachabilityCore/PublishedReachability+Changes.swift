/// Change detection: which properties a `PropertiesChanged` must list, and whether
/// `ReachabilityChanged` is due.
///
/// ```swift
/// let changed = new.changedProperties(from: old)   // e.g. ["Interface"]
/// if !changed.isEmpty { emitPropertiesChanged(changed) }
/// if new.signalDue(from: old) { emitReachabilityChanged(new.status, new.flags) }
/// ```
extension PublishedReachability {
    /// The D-Bus property names of the `io.reachd.Reachability1` object, in the order
    /// `changedProperties(from:)` reports them.
    public static let propertyNames = [
        "Status", "Flags", "Reachable", "ReachableViaWWAN", "ReachableViaWiFi", "StatusString",
        "InterfaceType", "Interface", "Metered", "Connectivity", "Backend",
    ]

    /// The names of the properties whose published value differs from `old`, in `propertyNames` order;
    /// `[]` when nothing a client can see changed.
    ///
    /// Derived properties are compared as published, so a change from WWAN to WiFi lists
    /// `ReachableViaWWAN` and `ReachableViaWiFi` but not `Reachable`.
    public func changedProperties(from old: PublishedReachability) -> [String] {
        let differs = [
            status != old.status,
            flags != old.flags,
            reachable != old.reachable,
            reachableViaWWAN != old.reachableViaWWAN,
            reachableViaWiFi != old.reachableViaWiFi,
            statusString != old.statusString,
            interfaceType != old.interfaceType,
            interface != old.interface,
            metered != old.metered,
            connectivity != old.connectivity,
            backendName != old.backendName,
        ]
        return zip(Self.propertyNames, differs).compactMap { $1 ? $0 : nil }
    }

    /// Whether `ReachabilityChanged(status, flags)` must be emitted: exactly when that pair changed.
    public func signalDue(from old: PublishedReachability) -> Bool {
        status != old.status || flags != old.flags
    }
}
