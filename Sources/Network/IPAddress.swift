public import FoundationEssentials

/// What IPv4 and IPv6 addresses share: Apple's `IPAddress`.
///
/// ```swift
/// func describe(_ address: some IPAddress) -> String { address.isLoopback ? "this machine" : "\(address)" }
/// ```
public protocol IPAddress: Sendable {
    init?(_ rawValue: Data, _ interface: NWInterface?)
    var rawValue: Data { get }
    var interface: NWInterface? { get }
    var isLoopback: Bool { get }
    var isLinkLocal: Bool { get }
    var isMulticast: Bool { get }
}
