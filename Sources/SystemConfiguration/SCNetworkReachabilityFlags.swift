/// What Apple's `SCNetworkReachabilityGetFlags` and the callback report, with Apple's bit values.
///
/// The values are reachd's own flags (`ReachabilityFlags`), which were made with Apple's bits: a
/// target's flags are the client library's, handed on unchanged.
///
/// ```swift
/// if flags.contains(.reachable) && !flags.contains(.connectionRequired) { print("online") }
/// ```
public struct SCNetworkReachabilityFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    public static let transientConnection = SCNetworkReachabilityFlags(rawValue: 1 << 0)
    public static let reachable = SCNetworkReachabilityFlags(rawValue: 1 << 1)
    public static let connectionRequired = SCNetworkReachabilityFlags(rawValue: 1 << 2)
    public static let connectionOnTraffic = SCNetworkReachabilityFlags(rawValue: 1 << 3)
    public static let interventionRequired = SCNetworkReachabilityFlags(rawValue: 1 << 4)
    public static let connectionOnDemand = SCNetworkReachabilityFlags(rawValue: 1 << 5)
    public static let isLocalAddress = SCNetworkReachabilityFlags(rawValue: 1 << 16)
    public static let isDirect = SCNetworkReachabilityFlags(rawValue: 1 << 17)
    /// Reachable over a mobile (WWAN) interface; Apple has it on iOS only, reachd on every machine.
    public static let isWWAN = SCNetworkReachabilityFlags(rawValue: 1 << 18)
    /// Apple's older name for `.connectionOnTraffic`.
    public static let connectionAutomatic = connectionOnTraffic
}
