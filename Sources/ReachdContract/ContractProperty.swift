import ReachdDBus
import ReachdCore

/// One read-only property of an exported object: its name and signature as in the XML, and how
/// its value is read off the object's published value.
///
/// A table of these is the single description of an object's properties: the service declares
/// them from it, and change detection compares them through it, so a property cannot be served
/// and forgotten in `PropertiesChanged` (or the other way round).
///
/// ```swift
/// let status = ContractProperty<HostReport>("Status", "i") { .int32($0.status.rawValue) }
/// status.read(.notReachable)   // .int32(0)
/// ```
public struct ContractProperty<Value>: Sendable {
    public let name: String
    public let signature: Signature
    public let read: @Sendable (Value) -> DBusValue
    /// What change detection compares: the published value, or less of it when a part of it
    /// changing alone is not worth announcing (`Details`' `override-since-usec`).
    public let compared: @Sendable (Value) -> DBusValue

    public init(_ name: String, _ signature: Signature, read: @escaping @Sendable (Value) -> DBusValue) {
        self.name = name
        self.signature = signature
        self.read = read
        self.compared = read
    }

    /// A property whose changes are detected on `compared` rather than on all of `read`.
    public init(_ name: String, _ signature: Signature, read: @escaping @Sendable (Value) -> DBusValue,
                compared: @escaping @Sendable (Value) -> DBusValue) {
        self.name = name
        self.signature = signature
        self.read = read
        self.compared = compared
    }

    /// The service's declaration of this property, reading the current value with `current`;
    /// `cachedPer`: the generation advanced whenever `current` may give another value.
    public func declaration(current: @escaping @Sendable () -> Value, cachedPer: ReplyGeneration? = nil) -> PropertyDeclaration {
        PropertyDeclaration(name: name, signature: signature, cachedPer: cachedPer, read: { [read] in read(current()) })
    }
}

extension Array {
    /// The names of the properties whose published value differs between `old` and `new`, in
    /// table order; `[]` when nothing a client can see changed.
    public func changedNames<Value>(from old: Value, to new: Value) -> [String]
    where Element == ContractProperty<Value> {
        compactMap { $0.compared(new) != $0.compared(old) ? $0.name : nil }
    }
}

/// A value that carries AFNetworking's status and Apple's flags: both objects publish these
/// first, and the booleans and the string that follow from the status.
public protocol ReachabilityStatusCarrying: Sendable {
    var status: NetworkReachabilityStatus { get }
    var flags: ReachabilityFlags { get }
}

extension PublishedReachability: ReachabilityStatusCarrying {}
extension HostReport: ReachabilityStatusCarrying {}

extension ContractProperty where Value: ReachabilityStatusCarrying {
    /// `Status`, `Flags`, `Reachable`, `ReachableViaWWAN`, `ReachableViaWiFi`, `StatusString`, in the XML's order.
    public static var statusProperties: [ContractProperty<Value>] {
        [
            ContractProperty("Status", "i") { .int32($0.status.rawValue) },
            ContractProperty("Flags", "u") { .uint32($0.flags.rawValue) },
            ContractProperty("Reachable", "b") { .boolean($0.status.isReachable) },
            ContractProperty("ReachableViaWWAN", "b") { .boolean($0.status.isReachableViaWWAN) },
            ContractProperty("ReachableViaWiFi", "b") { .boolean($0.status.isReachableViaWiFi) },
            ContractProperty("StatusString", "s") { .string($0.status.string) },
        ]
    }
}
