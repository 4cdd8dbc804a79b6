// Pins for values Swift mirrors (ReachabilityCore.RouteType mirrors RTN_*).
#include "CNetlink.h"

_Static_assert(RTN_UNICAST == 1, "RouteType.unicast");
_Static_assert(RTN_LOCAL == 2, "RouteType.local");
_Static_assert(RTN_BLACKHOLE == 6, "RouteType.blackhole");
_Static_assert(RTN_UNREACHABLE == 7, "RouteType.unreachable");
_Static_assert(RTN_PROHIBIT == 8, "RouteType.prohibit");
_Static_assert(RTN_THROW == 9, "RouteType.throw");
_Static_assert(sizeof(struct nlmsghdr) == 16, "netlink header layout");
_Static_assert(sizeof(struct rtmsg) == 12, "rtmsg layout");
