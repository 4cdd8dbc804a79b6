import SystemConfiguration

/// The answer copied most often for "check for an internet connection in Swift": `import
/// SystemConfiguration` alone, Darwin's memberwise `sockaddr_in` with its length, and SCNetwork.h's
/// older flag names.
public class LegacyReachability {
    class func isConnectedToNetwork() -> Bool {
        var zeroAddress = sockaddr_in(sin_len: 0, sin_family: 0, sin_port: 0, sin_addr: in_addr(s_addr: 0),
                                      sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        zeroAddress.sin_len = UInt8(MemoryLayout.size(ofValue: zeroAddress))
        zeroAddress.sin_family = sa_family_t(AF_INET)

        guard let defaultRouteReachability = withUnsafePointer(to: &zeroAddress, {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { zeroSockAddress in
                SCNetworkReachabilityCreateWithAddress(nil, zeroSockAddress)
            }
        }) else {
            return false
        }

        var flags: SCNetworkReachabilityFlags = []
        if !SCNetworkReachabilityGetFlags(defaultRouteReachability, &flags) {
            return false
        }
        let connectionFlags: SCNetworkConnectionFlags = flags.rawValue
        let isReachable = (connectionFlags & UInt32(kSCNetworkFlagsReachable)) != 0
        let needsConnection = (connectionFlags & UInt32(kSCNetworkFlagsConnectionRequired)) != 0
        return isReachable && !needsConnection
    }
}

/// The porting guide's first example, as it stands there (in a function: a file other than main
/// has no top-level statements).
func portingGuideFirstExample() -> Bool {
    var zeroAddress = sockaddr()
    zeroAddress.sa_len = UInt8(MemoryLayout<sockaddr>.size)
    zeroAddress.sa_family = sa_family_t(AF_INET)
    let target = SCNetworkReachabilityCreateWithAddress(nil, &zeroAddress)!
    var flags = SCNetworkReachabilityFlags()
    if SCNetworkReachabilityGetFlags(target, &flags), flags.contains(.reachable) { print("online"); return true }
    return false
}
