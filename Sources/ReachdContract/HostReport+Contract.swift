import ReachdDBus
import ReachdCore

/// The properties of `io.reachd.Reachability1.Monitor` that describe reachability, in the XML's
/// order after `Host` (which is constant and declared by the monitor itself).
extension HostReport {
    public static let contractProperties: [ContractProperty<HostReport>] = ContractProperty.statusProperties + [
        ContractProperty("Interface", "s") { .string($0.interface) },
        ContractProperty("InterfaceType", "s") { .string($0.interfaceType.rawValue) },
    ]

    /// The monitor property names, in the order `changedProperties(from:)` reports them.
    public static var propertyNames: [String] { contractProperties.map(\.name) }

    /// The names of the monitor properties whose published value differs from `old`, in table order.
    public func changedProperties(from old: HostReport) -> [String] {
        Self.contractProperties.changedNames(from: old, to: self)
    }
}
