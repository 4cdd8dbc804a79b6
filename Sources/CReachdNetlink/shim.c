// Pins for values Swift mirrors (ReachdCore.RouteType mirrors RTN_*).
#include "CReachdNetlink.h"

_Static_assert(RTN_UNICAST == 1, "RouteType.unicast");
_Static_assert(RTN_LOCAL == 2, "RouteType.local");
_Static_assert(RTN_BLACKHOLE == 6, "RouteType.blackhole");
_Static_assert(RTN_UNREACHABLE == 7, "RouteType.unreachable");
_Static_assert(RTN_PROHIBIT == 8, "RouteType.prohibit");
_Static_assert(RTN_THROW == 9, "RouteType.throw");
_Static_assert(sizeof(struct nlmsghdr) == 16, "netlink header layout");
_Static_assert(sizeof(struct rtmsg) == 12, "rtmsg layout");

// Pins for the netlink constants Swift spells by value in the change filter
// (Kernel/RouteChurnFilter.swift): the message types and rtmsg offsets it reads.
_Static_assert(RTM_NEWROUTE == 24 && RTM_DELROUTE == 25, "RouteChurnFilter message types");
_Static_assert(sizeof(struct nlmsghdr) == 16, "RouteChurnFilter: rtmsg starts at offset 16");
_Static_assert(__builtin_offsetof(struct rtmsg, rtm_dst_len) == 1, "RouteChurnFilter dst_len offset 17");
_Static_assert(__builtin_offsetof(struct rtmsg, rtm_protocol) == 5, "RouteChurnFilter protocol offset 21");
_Static_assert(RTNLGRP_IPV6_RULE == 19, "NetlinkChangeMonitor joins group 19");
