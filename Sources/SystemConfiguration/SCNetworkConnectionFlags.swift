/// SCNetwork.h's older names for the reachability flags, which code copied from answers and old
/// samples still uses: `(flags.rawValue & UInt32(kSCNetworkFlagsReachable)) != 0`. Apple's types and
/// values: the alias is `UInt32` and each constant an `Int` (a C enum without a name), with the
/// same bits as `SCNetworkReachabilityFlags`.
public typealias SCNetworkConnectionFlags = UInt32

public let kSCNetworkFlagsTransientConnection: Int = 1 << 0
public let kSCNetworkFlagsReachable: Int = 1 << 1
public let kSCNetworkFlagsConnectionRequired: Int = 1 << 2
public let kSCNetworkFlagsConnectionAutomatic: Int = 1 << 3
public let kSCNetworkFlagsInterventionRequired: Int = 1 << 4
public let kSCNetworkFlagsIsLocalAddress: Int = 1 << 16
public let kSCNetworkFlagsIsDirect: Int = 1 << 17
