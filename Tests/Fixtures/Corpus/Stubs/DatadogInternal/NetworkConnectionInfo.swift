import Foundation

// Datadog's DatadogInternal module, only what its NetworkConnectionInfoPublisher.swift (both
// versions in the corpus) takes from it: the context value protocols and NetworkConnectionInfo.

public typealias ContextValueReceiver<Value> = (Value) -> Void

public protocol ContextValuePublisher {
    associatedtype Value
    var initialValue: Value { get }
    func publish(to receiver: @escaping ContextValueReceiver<Value>)
    func cancel()
}

public protocol ContextValueReader {
    associatedtype Value
    func read(to receiver: inout Value)
}

public struct NetworkConnectionInfo: Equatable {
    public enum Reachability: String, Equatable { case yes, maybe, no }
    public enum Interface: String, Equatable { case wifi, wiredEthernet, cellular, loopback, other }
    public enum LinkQuality: String, Equatable { case good, moderate, minimal, unknown }

    public let reachability: Reachability
    public let availableInterfaces: [Interface]?
    public let supportsIPv4: Bool?
    public let supportsIPv6: Bool?
    public let isExpensive: Bool?
    public let isConstrained: Bool?
    public let linkQuality: LinkQuality?

    public init(reachability: Reachability, availableInterfaces: [Interface]?, supportsIPv4: Bool?, supportsIPv6: Bool?,
                isExpensive: Bool?, isConstrained: Bool?, linkQuality: LinkQuality? = nil) {
        self.reachability = reachability
        self.availableInterfaces = availableInterfaces
        self.supportsIPv4 = supportsIPv4
        self.supportsIPv6 = supportsIPv6
        self.isExpensive = isExpensive
        self.isConstrained = isConstrained
        self.linkQuality = linkQuality
    }
}
