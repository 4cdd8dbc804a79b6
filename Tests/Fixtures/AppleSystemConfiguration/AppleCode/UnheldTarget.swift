import SystemConfiguration

/// As Kickstarter's app writes it: one target made and scheduled in a function, with a global
/// function for its callback and no context, and no reference kept anywhere. configd retains a
/// scheduled target, so its callbacks go on for the life of the app.
func reachabilityChanged(_ target: SCNetworkReachability, _ flags: SCNetworkReachabilityFlags, _ info: UnsafeMutableRawPointer?) {
    unheldTargetHeard(flags)
}

func startUnheldReachability(on queue: DispatchQueue) {
    var zeroAddress = sockaddr_in()
    zeroAddress.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
    zeroAddress.sin_family = sa_family_t(AF_INET)
    guard let reachability = withUnsafePointer(to: &zeroAddress, {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SCNetworkReachabilityCreateWithAddress(nil, $0) }
    }) else { return }
    SCNetworkReachabilitySetCallback(reachability, reachabilityChanged, nil)
    SCNetworkReachabilitySetDispatchQueue(reachability, queue)
}
