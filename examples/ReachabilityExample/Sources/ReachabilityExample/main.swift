// Prints the network's reachability once, as the nearest reachd publishes it (or, where none
// shares this process's network namespace, as reachd's engine run in this process computes it):
// first AFNetworking's way, then NWPathMonitor's. With --watch, one line per change until stopped.
import Glibc
import ReachdKit

let manager = NetworkReachabilityManager.shared

if CommandLine.arguments.dropFirst().first == "--watch" {
    // The current state first, then one line for each change.
    for await update in manager.updates {
        print(update.status.string, "over", update.interfaceType)
        // Out now, into a pipe or a file (a container's log) too: C's stdout would otherwise hold
        // the lines until 4 KiB gather, and a SIGTERM (docker stop) would lose them.
        fflush(nil)
    }
}

// The stream starts with the current value; take that one and stop.
for await update in manager.updates {
    print("\(manager.localizedNetworkReachabilityStatusString) [\(update.flags)] via \(update.interfaceType)")
    break
}

// The same network as a path: is it usable, how far does it go, and why not if not.
for await path in NetworkPathMonitor().paths {
    print("path \(path.status == .satisfied ? "satisfied" : "unsatisfied (\(path.unsatisfiedReason.rawValue))"), level \(path.level.rawValue)")
    break
}
