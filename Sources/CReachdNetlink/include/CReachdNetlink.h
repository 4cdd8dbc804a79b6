// rtnetlink for Swift: the headers, and one-line wrappers for the
// function-like macros (NLMSG_*, RTA_*) that the Swift importer drops.
#ifndef REACHD_CNETLINK_H
#define REACHD_CNETLINK_H

#include <stdint.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
// Classic BPF (struct sock_filter, BPF_* opcodes) for the kernel-side filter
// on reachd's change socket.
#include <linux/filter.h>

// NLMSG_ALIGN(len): netlink messages start on 4-byte boundaries.
static inline uint32_t CNetlink_NLMSG_ALIGN(uint32_t length) { return NLMSG_ALIGN(length); }
// NLMSG_HDRLEN: the aligned size of struct nlmsghdr.
static inline uint32_t CNetlink_NLMSG_HDRLEN(void) { return NLMSG_HDRLEN; }
// NLMSG_LENGTH(len): header plus a payload of len bytes.
static inline uint32_t CNetlink_NLMSG_LENGTH(uint32_t length) { return NLMSG_LENGTH(length); }
// RTA_ALIGN(len): attributes start on 4-byte boundaries.
static inline uint32_t CNetlink_RTA_ALIGN(uint32_t length) { return RTA_ALIGN(length); }
// RTA_LENGTH(len): attribute header plus a payload of len bytes.
static inline uint32_t CNetlink_RTA_LENGTH(uint32_t length) { return RTA_LENGTH(length); }
// The multicast groups reachd listens to (RTMGRP_* are legacy bit masks; the
// IPv6 rule group, RTNLGRP_IPV6_RULE, has no mask and is joined by number).
static inline uint32_t CNetlink_change_groups(void) {
    return RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE
        | RTMGRP_IPV4_RULE;
}

#endif
