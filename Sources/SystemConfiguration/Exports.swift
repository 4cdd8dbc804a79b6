// Apple's SystemConfiguration brings Dispatch with it (its header includes <dispatch/dispatch.h>):
// `SCNetworkReachabilitySetDispatchQueue(target, DispatchQueue.main)` compiles with this import alone.
@_exported import Dispatch
// And the C library's socket types and constants (its headers include <sys/socket.h>, and the
// module brings Darwin): `var address = sockaddr_in()`, `sa_family_t(AF_INET)` and `inet_pton`
// compile in a file that imports SystemConfiguration alone, as the porting guide's first example does.
@_exported import Glibc
