import SystemConfiguration

// Callbacks as real code passes them, compiled in Swift 5 mode with warnings as errors (an SDK's
// settings): before, a global function warned ("converting non-Sendable function value"), and such
// an SDK did not build. Prints `callbacks set=3` when each was accepted.

/// As RxSwift's Reachability.swift: a global function.
func callback(reachability _: SCNetworkReachability, flags _: SCNetworkReachabilityFlags, info _: UnsafeMutableRawPointer?) {}

func setEachKindOfCallback() -> Int {
    var zeroAddress = sockaddr_in()
    zeroAddress.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
    zeroAddress.sin_family = sa_family_t(AF_INET)
    guard let target = withUnsafePointer(to: &zeroAddress, {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SCNetworkReachabilityCreateWithAddress(nil, $0) }
    }) else { return 0 }
    /// As Mixpanel's MixpanelInstance.swift: a local function.
    func reachabilityCallback(reachability _: SCNetworkReachability, flags _: SCNetworkReachabilityFlags,
                              unsafePointer _: UnsafeMutableRawPointer?) {}
    let accepted = [
        SCNetworkReachabilitySetCallback(target, callback, nil),
        SCNetworkReachabilitySetCallback(target, reachabilityCallback, nil),
        // As Alamofire's: a closure literal that captures nothing.
        SCNetworkReachabilitySetCallback(target, { _, _, _ in }, nil),
    ].filter { $0 }.count
    SCNetworkReachabilitySetCallback(target, nil, nil)
    return accepted
}

print("callbacks set=\(setEachKindOfCallback())")
