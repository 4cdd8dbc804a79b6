// Apple's reachability code as it is written for iOS and macOS, with no `#if os(Linux)`: reachd's
// `SystemConfiguration` and `Network` products answer it on Linux
// (docs/app-developers/porting-from-apple.md). Prints the network once, SCNetworkReachability's
// way (as AFNetworking's default manager asks: the route to 0.0.0.0), then NWPathMonitor's.
import Foundation
import Network
import SystemConfiguration

var zeroAddress = sockaddr_in()
zeroAddress.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
zeroAddress.sin_family = sa_family_t(AF_INET)
let target = withUnsafePointer(to: &zeroAddress) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { SCNetworkReachabilityCreateWithAddress(nil, $0) }
}
var flags = SCNetworkReachabilityFlags()
if let target, SCNetworkReachabilityGetFlags(target, &flags) {
    print("SCNetworkReachability: reachable \(flags.contains(.reachable)), WWAN \(flags.contains(.isWWAN))")
} else {
    print("SCNetworkReachability: no answer (\(String(cString: SCErrorString(SCError()))))")
}

// The first path, on a queue of the monitor's own, then stop.
let monitor = NWPathMonitor()
let firstPath = DispatchSemaphore(value: 0)
monitor.pathUpdateHandler = { path in
    let interfaces = path.availableInterfaces.map { "\($0.name) (\($0.type))" }.joined(separator: ", ")
    print("NWPath: \(path.status), expensive \(path.isExpensive), interfaces [\(interfaces)]")
    firstPath.signal()
}
monitor.start(queue: DispatchQueue(label: "path monitor"))
firstPath.wait()
monitor.cancel()
