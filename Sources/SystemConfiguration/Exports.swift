// Apple's SystemConfiguration brings Dispatch with it (its header includes <dispatch/dispatch.h>):
// `SCNetworkReachabilitySetDispatchQueue(target, DispatchQueue.main)` compiles with this import alone.
@_exported import Dispatch
