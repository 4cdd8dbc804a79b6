// Prints the network's reachability once, as reachd on the session bus publishes it.
import Reachability

let manager = NetworkReachabilityManager.shared

// The stream starts with the current value; take that one and stop.
for await update in manager.updates {
    print("\(manager.localizedNetworkReachabilityStatusString) [\(update.flags)] via \(update.interfaceType)")
    break
}
