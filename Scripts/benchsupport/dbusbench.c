/*
 * dbusbench: measuring fixtures for Scripts/bench and Scripts/reliability.
 * Not product code. Plain libdbus, blocking calls, one connection per process.
 *
 *   serve ADDR NAME                      minimal service: answers every method call at once with (i 2, u 2)
 *   calls ADDR DEST PATH IFACE MEMBER CLIENTS N
 *                                        CLIENTS forked processes, each N blocking calls (no args);
 *                                        prints "calls=… seconds=… per_second=… errors=…"
 *   latency SYSADDR SESSADDR N           toggles NetworkManager's Connectivity full<->portal N times with
 *                                        Properties.Set; stamps (CLOCK_MONOTONIC) NM's PropertiesChanged on
 *                                        the system bus and reachd's ReachabilityChanged on the session bus;
 *                                        prints one line per change: "direct_us reachd_us" from the send
 *   latency-connman SYSADDR SESSADDR N JSON_A JSON_B
 *                                        the same for ConnMan: N times gives Scripts/harness/connman-standin
 *                                        the states JSON_A and JSON_B in turn (Set), each of which makes it send
 *                                        one net.connman.Manager PropertyChanged (OfflineMode); stamps that signal
 *                                        (the direct subscriber) and reachd's ReachabilityChanged; prints
 *                                        "direct_us reachd_us" per change, from the send
 *   hold ADDR N PREFIX                   one connection makes N monitors (ManagerForAddress PREFIX.x.y), prints
 *                                        "ready N" and keeps the connection (reading its signals) until killed
 *   reeval ADDR N PREFIX IFNAME DST/LEN FLIPS
 *                                        run inside reachd's network namespace: one connection makes N monitors as
 *                                        `hold` does (PREFIX inside DST/LEN), then FLIPS times deletes / re-adds the
 *                                        IPv4 route DST/LEN dev IFNAME (rtnetlink, scope link; it must exist at the
 *                                        start); stamps (CLOCK_MONOTONIC) just before each netlink request and again
 *                                        when the N-th ReachabilityChanged (Status 0 after a delete, > 0 after an add)
 *                                        from a monitor path arrived; prints "down|up ms signals" per flip
 *   floor ADDR N ROUNDS                  the bus's floor for the same traffic: a forked minimal C emitter sends, per
 *                                        round, N monitor-path PropertiesChanged + ReachabilityChanged pairs (what
 *                                        reachd sends per flip: the same seven properties with the same values)
 *                                        and this client counts them as `reeval` does;
 *                                        prints "ms signals" per round (stamp: just before the "go" to the emitter)
 *   fuzz ADDR N SEED                     N malformed/random calls to reachd, each must be answered; prints counts
 *   start ADDR NAME RUNS -- PROGRAM ARGS…  runs PROGRAM RUNS times: exec → NAME owned → first GetStatus reply;
 *                                        prints "milliseconds status" per run
 *   check ADDR ROUNDS GAP_US HOST…       one connection; ROUNDS times, for each HOST in turn, a blocking CheckHost(HOST)
 *                                        then GAP_US microseconds of sleep; prints "microseconds status host" per call
 *                                        (the time from just before the send to the reply)
 *   flood ADDR N FORMAT                  one connection keeps N CheckHost calls in flight, for the names FORMAT with
 *                                        %d = 0 … N-1 (e.g. a%d.slow.test), re-sending each name as soon as its answer
 *                                        comes; prints "flooding N" once all N are sent, then runs until killed
 */
#define _GNU_SOURCE
#include <dbus/dbus.h>
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RD_NAME "io.reachd.Reachability1"
#define RD_PATH "/io/reachd/Reachability1"
#define NM_NAME "org.freedesktop.NetworkManager"
#define NM_PATH "/org/freedesktop/NetworkManager"
#define PROPS "org.freedesktop.DBus.Properties"

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void die(const char *what, DBusError *e) {
    fprintf(stderr, "dbusbench: %s: %s\n", what, e && dbus_error_is_set(e) ? e->message : "failed");
    exit(1);
}

/* A private connection that has said Hello; never exits the process on disconnect. */
static DBusConnection *connect_bus(const char *addr) {
    DBusError e;
    dbus_error_init(&e);
    DBusConnection *c = dbus_connection_open_private(addr, &e);
    if (!c) die("connect", &e);
    if (!dbus_bus_register(c, &e)) die("hello", &e);
    dbus_connection_set_exit_on_disconnect(c, FALSE);
    return c;
}

/* ---- serve: the section 6 baseline, the cheapest correct answer a bus service can give ---- */
static int serve(const char *addr, const char *name) {
    DBusConnection *c = connect_bus(addr);
    DBusError e;
    dbus_error_init(&e);
    if (dbus_bus_request_name(c, name, DBUS_NAME_FLAG_DO_NOT_QUEUE, &e) != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER)
        die("request name", &e);
    dbus_int32_t status = 2;
    dbus_uint32_t flags = 2;
    /* The queue is emptied before each wait: a call that arrived while dbus_bus_request_name
     * blocked for its reply is already read from the socket, and waiting first would leave it
     * unanswered until the next message (one start in three of the bench's start rows lost it). */
    do {
        DBusMessage *m;
        while ((m = dbus_connection_pop_message(c))) {
            if (dbus_message_get_type(m) == DBUS_MESSAGE_TYPE_METHOD_CALL && !dbus_message_get_no_reply(m)) {
                DBusMessage *r = dbus_message_new_method_return(m);
                dbus_message_append_args(r, DBUS_TYPE_INT32, &status, DBUS_TYPE_UINT32, &flags, DBUS_TYPE_INVALID);
                dbus_connection_send(c, r, NULL);
                dbus_message_unref(r);
            }
            dbus_message_unref(m);
        }
        dbus_connection_flush(c); /* read_write(-1) would otherwise poll for input before writing the replies */
    } while (dbus_connection_read_write(c, -1));
    return 0;
}

/* ---- calls: every client connects first, then all start together (a pipe is the barrier) ---- */
static int calls(char **a, int clients, long n) {
    int go[2], done[2];
    if (pipe(go) || pipe(done)) return 1;
    for (int i = 0; i < clients; i++) {
        if (fork() == 0) {
            close(go[1]);
            DBusConnection *c = connect_bus(a[0]);
            char ch;
            if (write(done[1], "r", 1) != 1 || read(go[0], &ch, 1) < 0) _exit(1);
            long errors = 0;
            for (long k = 0; k < n; k++) {
                DBusMessage *m = dbus_message_new_method_call(a[1], a[2], a[3], a[4]);
                DBusError e;
                dbus_error_init(&e);
                DBusMessage *r = dbus_connection_send_with_reply_and_block(c, m, 25000, &e);
                dbus_message_unref(m);
                if (r) dbus_message_unref(r);
                else {
                    if (errors++ == 0) fprintf(stderr, "dbusbench: call failed: %s\n", e.message);
                    dbus_error_free(&e);
                }
            }
            _exit(errors > 255 ? 255 : (int)errors);
        }
    }
    close(go[0]);
    char ch;
    for (int i = 0; i < clients; i++)
        if (read(done[0], &ch, 1) != 1) return 1;
    double t0 = now_us();
    close(go[1]); /* EOF releases every client at once */
    long errors = 0;
    int st;
    while (wait(&st) > 0) errors += WIFEXITED(st) ? WEXITSTATUS(st) : 1;
    double s = (now_us() - t0) / 1e6;
    printf("calls=%ld seconds=%.4f per_second=%.0f errors=%ld\n", clients * n, s, clients * n / s, errors);
    return errors ? 1 : 0;
}

/* ---- latency ---- */
static void add_match(DBusConnection *c, const char *rule) {
    DBusError e;
    dbus_error_init(&e);
    dbus_bus_add_match(c, rule, &e);
    if (dbus_error_is_set(&e)) die("add match", &e);
}

/* Reads whatever is waiting on c; returns 1 if a message matching iface/member arrived. */
static int drain(DBusConnection *c, const char *iface, const char *member) {
    int seen = 0;
    dbus_connection_read_write(c, 0);
    DBusMessage *m;
    while ((m = dbus_connection_pop_message(c))) {
        if (dbus_message_is_signal(m, iface, member)) seen = 1;
        dbus_message_unref(m);
    }
    return seen;
}

/* Waits for both stamps after a change sent at t0: 0 when both came within 2 s. */
static int stamp_both(DBusConnection *direct, const char *iface, const char *member, DBusConnection *reachd,
                      DBusConnection *setter, double t0, double *td, double *tr) {
    int fds[3];
    dbus_connection_get_unix_fd(direct, &fds[0]);
    dbus_connection_get_unix_fd(reachd, &fds[1]);
    dbus_connection_get_unix_fd(setter, &fds[2]);
    *td = -1; *tr = -1;
    while (*td < 0 || *tr < 0) {
        struct pollfd p[3] = {{fds[0], POLLIN, 0}, {fds[1], POLLIN, 0}, {fds[2], POLLIN, 0}};
        int left = 2000 - (int)((now_us() - t0) / 1000);
        if (left <= 0 || poll(p, 3, left) <= 0) return 1;
        if (*td < 0 && drain(direct, iface, member)) *td = now_us();
        if (*tr < 0 && drain(reachd, RD_NAME, "ReachabilityChanged")) *tr = now_us();
        drain(setter, "", ""); /* the Set reply */
    }
    return 0;
}

static int latency_connman(const char *sys, const char *sess, int n, const char *a, const char *b) {
    DBusConnection *direct = connect_bus(sys), *setter = connect_bus(sys), *reachd = connect_bus(sess);
    add_match(direct, "type='signal',sender='net.connman',path='/',interface='net.connman.Manager',member='PropertyChanged'");
    add_match(reachd, "type='signal',sender='" RD_NAME "',path='" RD_PATH "',interface='" RD_NAME "',member='ReachabilityChanged'");
    int missed = 0;
    for (int i = 0; i < n; i++) {
        const char *state = (i % 2 == 0) ? a : b;
        DBusMessage *m = dbus_message_new_method_call("net.connman", "/io/reachd/test/ConnManStandIn",
                                                      "io.reachd.test.ConnManStandIn", "Set");
        dbus_message_append_args(m, DBUS_TYPE_STRING, &state, DBUS_TYPE_INVALID);
        dbus_connection_send(setter, m, NULL);
        dbus_message_unref(m);
        dbus_connection_flush(setter);
        double t0 = now_us(), td, tr;
        if (stamp_both(direct, "net.connman.Manager", "PropertyChanged", reachd, setter, t0, &td, &tr)) { missed++; continue; }
        printf("%.1f %.1f\n", td - t0, tr - t0);
        usleep(2000); /* let both hops go quiet before the next change */
    }
    fprintf(stderr, "dbusbench: latency-connman: %d of %d changes missed\n", missed, n);
    return missed ? 1 : 0;
}

static int latency(const char *sys, const char *sess, int n) {
    DBusConnection *direct = connect_bus(sys), *setter = connect_bus(sys), *reachd = connect_bus(sess);
    add_match(direct, "type='signal',sender='" NM_NAME "',path='" NM_PATH "',interface='" PROPS "',member='PropertiesChanged'");
    add_match(reachd, "type='signal',sender='" RD_NAME "',path='" RD_PATH "',interface='" RD_NAME "',member='ReachabilityChanged'");
    int fds[3];
    dbus_connection_get_unix_fd(direct, &fds[0]);
    dbus_connection_get_unix_fd(reachd, &fds[1]);
    dbus_connection_get_unix_fd(setter, &fds[2]);
    int missed = 0;
    for (int i = 0; i < n; i++) {
        dbus_uint32_t value = (i % 2 == 0) ? 2 : 4; /* NM_CONNECTIVITY_PORTAL : FULL */
        DBusMessage *m = dbus_message_new_method_call(NM_NAME, NM_PATH, PROPS, "Set");
        const char *iface = NM_NAME, *prop = "Connectivity";
        DBusMessageIter it, v;
        dbus_message_iter_init_append(m, &it);
        dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &iface);
        dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &prop);
        dbus_message_iter_open_container(&it, DBUS_TYPE_VARIANT, "u", &v);
        dbus_message_iter_append_basic(&v, DBUS_TYPE_UINT32, &value);
        dbus_message_iter_close_container(&it, &v);
        dbus_connection_send(setter, m, NULL);
        dbus_message_unref(m);
        dbus_connection_flush(setter);
        double t0 = now_us(), td = -1, tr = -1;
        while (td < 0 || tr < 0) {
            struct pollfd p[3] = {{fds[0], POLLIN, 0}, {fds[1], POLLIN, 0}, {fds[2], POLLIN, 0}};
            int left = 2000 - (int)((now_us() - t0) / 1000);
            if (left <= 0 || poll(p, 3, left) <= 0) break;
            if (td < 0 && drain(direct, PROPS, "PropertiesChanged")) td = now_us();
            if (tr < 0 && drain(reachd, RD_NAME, "ReachabilityChanged")) tr = now_us();
            drain(setter, "", ""); /* the Set reply */
        }
        if (td < 0 || tr < 0) { missed++; continue; }
        printf("%.1f %.1f\n", td - t0, tr - t0);
        usleep(2000); /* let both hops go quiet before the next change */
    }
    fprintf(stderr, "dbusbench: latency: %d of %d changes missed\n", missed, n);
    return missed ? 1 : 0;
}

/* ---- hold: pipelined ManagerForAddress calls, then keep the connection ---- */
/* Makes n monitors for PREFIX.x.y on c; returns how many were made. */
static int make_monitors(DBusConnection *c, int n, const char *prefix) {
    DBusPendingCall **pending = calloc(n, sizeof *pending);
    int ok = 0;
    for (int i = 0; i < n; i++) {
        char host[64];
        snprintf(host, sizeof host, "%s.%d.%d", prefix, (i / 250) % 250 + 1, i % 250 + 1);
        const char *h = host;
        DBusMessage *m = dbus_message_new_method_call(RD_NAME, RD_PATH, RD_NAME, "ManagerForAddress");
        dbus_message_append_args(m, DBUS_TYPE_STRING, &h, DBUS_TYPE_INVALID);
        dbus_connection_send_with_reply(c, m, &pending[i], 60000);
        dbus_message_unref(m);
        if (i % 64 == 63 || i == n - 1) /* keep a window of 64 in flight: the bus caps outstanding calls */
            for (int k = i - (i % 64); k <= i; k++) {
                dbus_pending_call_block(pending[k]);
                DBusMessage *r = dbus_pending_call_steal_reply(pending[k]);
                if (r && dbus_message_get_type(r) == DBUS_MESSAGE_TYPE_METHOD_RETURN) ok++;
                else if (r && ok == k) fprintf(stderr, "dbusbench: hold: %s\n", dbus_message_get_error_name(r));
                if (r) dbus_message_unref(r);
                dbus_pending_call_unref(pending[k]);
            }
    }
    free(pending);
    return ok;
}

static int hold(const char *addr, int n, const char *prefix) {
    DBusConnection *c = connect_bus(addr);
    int ok = make_monitors(c, n, prefix);
    printf("ready %d\n", ok);
    fflush(stdout);
    while (dbus_connection_read_write(c, -1)) drain(c, "", ""); /* until killed */
    return ok == n ? 0 : 1;
}

/* ---- reeval and floor: count monitor ReachabilityChanged signals until n arrived ---- */
#define MON_IFACE RD_NAME ".Monitor"
#define MON_PATHS RD_PATH "/Monitors"

/* Counts ReachabilityChanged from paths under MON_PATHS whose status is 0 (want_up 0) or > 0 (want_up 1;
 * -1: any) until n arrived or timeout_ms passed; returns the count, *t_last the arrival of the last one. */
static long count_signals(DBusConnection *c, long n, int want_up, int timeout_ms, double *t_last) {
    int fd;
    dbus_connection_get_unix_fd(c, &fd);
    double t0 = now_us();
    long seen = 0;
    while (seen < n) {
        DBusMessage *m;
        while (seen < n && (m = dbus_connection_pop_message(c))) {
            dbus_int32_t status;
            dbus_uint32_t flags;
            const char *path = dbus_message_get_path(m);
            if (dbus_message_is_signal(m, MON_IFACE, "ReachabilityChanged") && path &&
                !strncmp(path, MON_PATHS "/", sizeof MON_PATHS) &&
                dbus_message_get_args(m, NULL, DBUS_TYPE_INT32, &status, DBUS_TYPE_UINT32, &flags, DBUS_TYPE_INVALID) &&
                (want_up < 0 || (want_up ? status > 0 : status == 0))) {
                seen++;
                *t_last = now_us();
            }
            dbus_message_unref(m);
        }
        if (seen >= n) break;
        int left = timeout_ms - (int)((now_us() - t0) / 1000);
        struct pollfd p = {fd, POLLIN, 0};
        if (left <= 0 || poll(&p, 1, left) <= 0) break;
        if (!dbus_connection_read_write(c, 0)) break;
    }
    return seen;
}

/* Reads and drops whatever arrives until the connection has been quiet for quiet_ms. */
static void settle(DBusConnection *c, int quiet_ms) {
    int fd;
    dbus_connection_get_unix_fd(c, &fd);
    for (;;) {
        DBusMessage *m;
        while ((m = dbus_connection_pop_message(c))) dbus_message_unref(m);
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, quiet_ms) <= 0 || !dbus_connection_read_write(c, 0)) return;
    }
}

static void add_attr(struct nlmsghdr *h, int type, const void *data, int len) {
    struct rtattr *a = (struct rtattr *)((char *)h + NLMSG_ALIGN(h->nlmsg_len));
    a->rta_type = type;
    a->rta_len = RTA_LENGTH(len);
    memcpy(RTA_DATA(a), data, len);
    h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + RTA_ALIGN(a->rta_len);
}

/* RTM_NEWROUTE / RTM_DELROUTE for DST/LEN dev OIF in the main table; 0 or an errno. Stamps *t0 just before the send. */
static int route_change(int fd, int add, struct in_addr dst, int len, int oif, double *t0) {
    struct { struct nlmsghdr h; struct rtmsg r; char attrs[64]; } req;
    memset(&req, 0, sizeof req);
    req.h.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg));
    req.h.nlmsg_type = add ? RTM_NEWROUTE : RTM_DELROUTE;
    req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (add ? NLM_F_CREATE | NLM_F_EXCL : 0);
    req.r.rtm_family = AF_INET;
    req.r.rtm_dst_len = len;
    req.r.rtm_table = RT_TABLE_MAIN;
    req.r.rtm_protocol = RTPROT_BOOT;
    req.r.rtm_scope = RT_SCOPE_LINK;
    req.r.rtm_type = RTN_UNICAST;
    add_attr(&req.h, RTA_DST, &dst, 4);
    add_attr(&req.h, RTA_OIF, &oif, 4);
    *t0 = now_us();
    if (send(fd, &req, req.h.nlmsg_len, 0) < 0) return errno;
    char buf[4096];
    ssize_t got = recv(fd, buf, sizeof buf, 0);
    if (got < (ssize_t)NLMSG_LENGTH(sizeof(struct nlmsgerr))) return EIO;
    struct nlmsghdr *h = (struct nlmsghdr *)buf;
    if (h->nlmsg_type != NLMSG_ERROR) return EIO;
    return -((struct nlmsgerr *)NLMSG_DATA(h))->error;
}

static int reeval(const char *addr, int n, const char *prefix, const char *ifname, const char *dst_len, int flips) {
    char dst_text[64];
    snprintf(dst_text, sizeof dst_text, "%s", dst_len);
    char *slash = strchr(dst_text, '/');
    struct in_addr dst;
    int oif = if_nametoindex(ifname);
    if (slash) *slash = 0;
    if (!slash || inet_pton(AF_INET, dst_text, &dst) != 1 || !oif) {
        fprintf(stderr, "dbusbench: reeval: bad route %s dev %s\n", dst_len, ifname);
        return 2;
    }
    int len = atoi(slash + 1);
    int nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (nl < 0) { perror("dbusbench: netlink socket"); return 1; }

    DBusConnection *c = connect_bus(addr);
    add_match(c, "type='signal',sender='" RD_NAME "',interface='" MON_IFACE "',member='ReachabilityChanged',path_namespace='" MON_PATHS "'");
    int ok = make_monitors(c, n, prefix);
    if (ok != n) { fprintf(stderr, "dbusbench: reeval: made %d of %d monitors\n", ok, n); return 1; }
    settle(c, 300);
    int failed = 0;
    for (int i = 0; i < flips; i++) {
        int up = i % 2; /* delete first: every monitor starts reachable */
        double t0, t1 = 0;
        int err = route_change(nl, up, dst, len, oif, &t0);
        if (err) { fprintf(stderr, "dbusbench: reeval: route %s: %s\n", up ? "add" : "delete", strerror(err)); return 1; }
        long seen = count_signals(c, n, up, 30000, &t1);
        printf("%s %.2f %ld\n", up ? "up" : "down", seen == n ? (t1 - t0) / 1000 : -1.0, seen);
        fflush(stdout);
        if (seen != n) { fprintf(stderr, "dbusbench: reeval: flip %d: %ld of %d monitors signalled within 30 s\n", i, seen, n); failed = 1; }
        settle(c, 300); /* no second round may still be on its way */
    }
    if (flips % 2) { double t; route_change(nl, 1, dst, len, oif, &t); } /* leave the route as found */
    return failed;
}

static void append_prop(DBusMessageIter *dict, const char *name, int type, const char *sig, const void *value) {
    DBusMessageIter entry, v;
    dbus_message_iter_open_container(dict, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
    dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &name);
    dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, sig, &v);
    dbus_message_iter_append_basic(&v, type, value);
    dbus_message_iter_close_container(&entry, &v);
    dbus_message_iter_close_container(dict, &entry);
}

static int floor_emit(const char *addr, int n, int go_fd, int ready_fd) {
    DBusConnection *c = connect_bus(addr);
    DBusError e;
    dbus_error_init(&e);
    if (dbus_bus_request_name(c, "io.reachd.Floor", DBUS_NAME_FLAG_DO_NOT_QUEUE, &e) != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER)
        die("request name", &e);
    char ch;
    if (write(ready_fd, "r", 1) != 1) return 1;
    for (int round = 0; read(go_fd, &ch, 1) == 1; round++) {
        dbus_int32_t status = round % 2 ? 2 : 0;
        dbus_uint32_t flags = round % 2 ? 0x20002 : 0;
        dbus_bool_t reachable = status > 0;
        /* The seven properties reachd's monitors announce for such a flip, with the same values
         * (dbus-monitor on the bench's bus): the floor must carry the same bytes as reachd. */
        const char *text = status ? "Reachable via WiFi" : "Not Reachable", *iface = MON_IFACE;
        const char *link = status ? "rb0" : "", *link_type = status ? "ethernet" : "none";
        for (int i = 0; i < n; i++) {
            char path[96];
            snprintf(path, sizeof path, MON_PATHS "/%d", i + 1);
            DBusMessage *m = dbus_message_new_signal(path, PROPS, "PropertiesChanged");
            DBusMessageIter it, dict, none;
            dbus_message_iter_init_append(m, &it);
            dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &iface);
            dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "{sv}", &dict);
            append_prop(&dict, "Status", DBUS_TYPE_INT32, "i", &status);
            append_prop(&dict, "Flags", DBUS_TYPE_UINT32, "u", &flags);
            append_prop(&dict, "Reachable", DBUS_TYPE_BOOLEAN, "b", &reachable);
            append_prop(&dict, "ReachableViaWiFi", DBUS_TYPE_BOOLEAN, "b", &reachable);
            append_prop(&dict, "StatusString", DBUS_TYPE_STRING, "s", &text);
            append_prop(&dict, "Interface", DBUS_TYPE_STRING, "s", &link);
            append_prop(&dict, "InterfaceType", DBUS_TYPE_STRING, "s", &link_type);
            dbus_message_iter_close_container(&it, &dict);
            dbus_message_iter_open_container(&it, DBUS_TYPE_ARRAY, "s", &none);
            dbus_message_iter_close_container(&it, &none);
            dbus_connection_send(c, m, NULL);
            dbus_message_unref(m);
            m = dbus_message_new_signal(path, MON_IFACE, "ReachabilityChanged");
            dbus_message_append_args(m, DBUS_TYPE_INT32, &status, DBUS_TYPE_UINT32, &flags, DBUS_TYPE_INVALID);
            dbus_connection_send(c, m, NULL);
            dbus_message_unref(m);
        }
        dbus_connection_flush(c);
    }
    return 0;
}

static int floor_bench(const char *addr, int n, int rounds) {
    int go[2], ready[2];
    if (pipe(go) || pipe(ready)) return 1;
    pid_t pid = fork();
    if (pid == 0) { close(go[1]); close(ready[0]); _exit(floor_emit(addr, n, go[0], ready[1])); }
    close(go[0]); close(ready[1]);
    DBusConnection *c = connect_bus(addr);
    add_match(c, "type='signal',sender='io.reachd.Floor',interface='" MON_IFACE "',member='ReachabilityChanged',path_namespace='" MON_PATHS "'");
    add_match(c, "type='signal',sender='io.reachd.Floor',interface='" PROPS "',member='PropertiesChanged',path_namespace='" MON_PATHS "'");
    char ch;
    if (read(ready[0], &ch, 1) != 1) return 1;
    int failed = 0;
    for (int i = 0; i < rounds; i++) {
        double t0 = now_us(), t1 = 0;
        if (write(go[1], "g", 1) != 1) return 1;
        long seen = count_signals(c, n, -1, 30000, &t1);
        printf("%.2f %ld\n", seen == n ? (t1 - t0) / 1000 : -1.0, seen);
        fflush(stdout);
        if (seen != n) failed = 1;
        settle(c, 100);
    }
    close(go[1]);
    waitpid(pid, NULL, 0);
    return failed;
}

/* ---- fuzz: every call must come back with a reply or an error; none may go unanswered ---- */
static void random_text(char *buf, size_t len, unsigned *seed) {
    /* Random bytes made valid UTF-8 (libdbus refuses to send anything else): ASCII, controls, 2- and 3-byte forms. */
    size_t i = 0;
    while (i + 3 < len) {
        unsigned r = rand_r(seed);
        switch (r % 4) {
        case 0: buf[i++] = 1 + r % 127; break;
        case 1: buf[i++] = 0x20 + (r >> 8) % 95; break;
        case 2: buf[i++] = 0xC2 + (r >> 8) % 30; buf[i++] = 0x80 + (r >> 16) % 64; break;
        default: buf[i++] = 0xE1 + (r >> 8) % 11; buf[i++] = 0x80 + (r >> 12) % 64; buf[i++] = 0x80 + (r >> 18) % 64;
        }
    }
    buf[i] = 0;
}

static int fuzz(const char *addr, long n, unsigned seed) {
    DBusConnection *c = connect_bus(addr);
    static const char *members[] = {"GetStatus", "ManagerForDomain", "ManagerForAddress", "CheckHost", "Nope", "Release"};
    static const char *paths[] = {RD_PATH, RD_PATH "/Monitors/1", RD_PATH "/Monitors/999999", "/", "/io/reachd"};
    static const char *ifaces[] = {RD_NAME, RD_NAME ".Monitor", PROPS, "org.freedesktop.DBus.Introspectable", "org.freedesktop.DBus.Peer", "x.y.Z", NULL};
    char *text = malloc(1 << 20);
    long replies = 0, errors = 0, unanswered = 0;
    for (long k = 0; k < n; k++) {
        unsigned r = rand_r(&seed);
        const char *iface = ifaces[r % 7];
        const char *member = (r >> 3) % 3 ? members[(r >> 5) % 6] : (const char *[]){"Get", "GetAll", "Set", "Introspect", "Ping"}[(r >> 5) % 5];
        DBusMessage *m = dbus_message_new_method_call(RD_NAME, paths[(r >> 9) % 5], iface, member);
        DBusMessageIter it;
        dbus_message_iter_init_append(m, &it);
        int args = (r >> 12) % 4;
        for (int a = 0; a < args; a++) {
            unsigned t = rand_r(&seed);
            size_t len = t % 16 == 0 ? 1 + t % (1 << 20) : 1 + t % 300; /* now and then a huge string */
            random_text(text, len, &seed);
            const char *s = text;
            dbus_int32_t i32 = (dbus_int32_t)t;
            double d = t / 7.0;
            switch ((t >> 4) % 4) {
            case 0: case 1: dbus_message_iter_append_basic(&it, DBUS_TYPE_STRING, &s); break;
            case 2: dbus_message_iter_append_basic(&it, DBUS_TYPE_INT32, &i32); break;
            default: dbus_message_iter_append_basic(&it, DBUS_TYPE_DOUBLE, &d);
            }
        }
        DBusError e;
        dbus_error_init(&e);
        DBusMessage *reply = dbus_connection_send_with_reply_and_block(c, m, 10000, &e);
        dbus_message_unref(m);
        if (reply) { replies++; dbus_message_unref(reply); }
        else if (strcmp(e.name, DBUS_ERROR_NO_REPLY) == 0 || strcmp(e.name, DBUS_ERROR_TIMEOUT) == 0 ||
                 strcmp(e.name, DBUS_ERROR_DISCONNECTED) == 0 || strcmp(e.name, DBUS_ERROR_SERVICE_UNKNOWN) == 0 ||
                 strcmp(e.name, DBUS_ERROR_NAME_HAS_NO_OWNER) == 0) {
            if (unanswered++ < 5) fprintf(stderr, "dbusbench: fuzz: call %ld (%s.%s) unanswered: %s\n", k, iface ? iface : "-", member, e.name);
            dbus_error_free(&e);
        } else { errors++; dbus_error_free(&e); }
    }
    printf("calls=%ld replies=%ld errors=%ld unanswered=%ld\n", n, replies, errors, unanswered);
    return unanswered ? 1 : 0;
}

/* ---- start: exec → name owned → first GetStatus reply ---- */
static int start(const char *addr, const char *name, int runs, char **argv) {
    DBusConnection *c = connect_bus(addr);
    char rule[256];
    snprintf(rule, sizeof rule, "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='%s'", name);
    add_match(c, rule);
    for (int i = 0; i < runs; i++) {
        double t0 = now_us();
        pid_t pid = fork();
        if (pid == 0) { execvp(argv[0], argv); _exit(127); }
        int owned = 0;
        while (!owned && now_us() - t0 < 10e6) {
            dbus_connection_read_write(c, 100);
            DBusMessage *m;
            while ((m = dbus_connection_pop_message(c))) {
                const char *nm, *old, *new;
                if (dbus_message_is_signal(m, "org.freedesktop.DBus", "NameOwnerChanged") &&
                    dbus_message_get_args(m, NULL, DBUS_TYPE_STRING, &nm, DBUS_TYPE_STRING, &old, DBUS_TYPE_STRING, &new, DBUS_TYPE_INVALID) && *new)
                    owned = 1;
                dbus_message_unref(m);
            }
        }
        DBusMessage *m = dbus_message_new_method_call(name, RD_PATH, RD_NAME, "GetStatus");
        DBusError error;
        dbus_error_init(&error);
        DBusMessage *r = owned ? dbus_connection_send_with_reply_and_block(c, m, 5000, &error) : NULL;
        double t1 = now_us();
        dbus_message_unref(m);
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
        if (!r) {
            if (!owned) fprintf(stderr, "dbusbench: start: run %d got no answer: the name was not owned within 10 s\n", i);
            else fprintf(stderr, "dbusbench: start: run %d got no answer to GetStatus: %s: %s\n", i, error.name, error.message);
            dbus_error_free(&error);
            return 1;
        }
        dbus_int32_t status = -2;
        dbus_message_get_args(r, NULL, DBUS_TYPE_INT32, &status, DBUS_TYPE_INVALID);
        dbus_message_unref(r);
        printf("%.2f %d\n", (t1 - t0) / 1000, (int)status);
        fflush(stdout);
        /* Wait until the bus has freed the name, so the next run starts clean: the bus
         * handles the exited process's disconnect on its own time, and a run started before
         * that finds the name taken (reachd exits 2) and never answers. */
        int freed = 0;
        double t2 = now_us();
        while (!freed && now_us() - t2 < 5e6) {
            dbus_connection_read_write(c, 100);
            while ((m = dbus_connection_pop_message(c))) {
                const char *nm, *old, *new;
                if (dbus_message_is_signal(m, "org.freedesktop.DBus", "NameOwnerChanged") &&
                    dbus_message_get_args(m, NULL, DBUS_TYPE_STRING, &nm, DBUS_TYPE_STRING, &old, DBUS_TYPE_STRING, &new, DBUS_TYPE_INVALID) && !*new)
                    freed = 1;
                dbus_message_unref(m);
            }
        }
    }
    return 0;
}

/* ---- check: CheckHost latency, one call at a time ---- */
static int check(const char *addr, int rounds, int gap_us, char **hosts, int nhosts) {
    DBusConnection *c = connect_bus(addr);
    int failed = 0;
    for (int i = 0; i < rounds; i++)
        for (int h = 0; h < nhosts; h++) {
            DBusMessage *m = dbus_message_new_method_call(RD_NAME, RD_PATH, RD_NAME, "CheckHost");
            dbus_message_append_args(m, DBUS_TYPE_STRING, &hosts[h], DBUS_TYPE_INVALID);
            DBusError e;
            dbus_error_init(&e);
            double t0 = now_us();
            DBusMessage *r = dbus_connection_send_with_reply_and_block(c, m, 25000, &e);
            double t1 = now_us();
            dbus_message_unref(m);
            dbus_int32_t status = -2;
            if (r) {
                dbus_message_get_args(r, NULL, DBUS_TYPE_INT32, &status, DBUS_TYPE_INVALID);
                dbus_message_unref(r);
            } else {
                if (failed++ == 0) fprintf(stderr, "dbusbench: check %s: %s\n", hosts[h], e.message);
                dbus_error_free(&e);
            }
            printf("%.1f %d %s\n", t1 - t0, (int)status, hosts[h]);
            if (gap_us > 0) usleep(gap_us);
        }
    fflush(stdout);
    return failed ? 1 : 0;
}

/* ---- flood: N CheckHost calls always in flight; a name is sent again as soon as it is answered ---- */
static dbus_uint32_t flood_send(DBusConnection *c, const char *format, int i) {
    char host[256];
    snprintf(host, sizeof host, format, i);
    const char *h = host;
    DBusMessage *m = dbus_message_new_method_call(RD_NAME, RD_PATH, RD_NAME, "CheckHost");
    dbus_message_append_args(m, DBUS_TYPE_STRING, &h, DBUS_TYPE_INVALID);
    dbus_uint32_t serial = 0;
    dbus_connection_send(c, m, &serial);
    dbus_message_unref(m);
    return serial;
}

static int flood(const char *addr, int n, const char *format) {
    DBusConnection *c = connect_bus(addr);
    dbus_uint32_t *serials = calloc(n, sizeof *serials);
    for (int i = 0; i < n; i++) serials[i] = flood_send(c, format, i);
    dbus_connection_flush(c);
    printf("flooding %d\n", n);
    fflush(stdout);
    /* Replies arrive as plain messages (no pending call was registered for them). */
    while (dbus_connection_read_write(c, -1)) {
        DBusMessage *m;
        while ((m = dbus_connection_pop_message(c))) {
            int type = dbus_message_get_type(m);
            if (type == DBUS_MESSAGE_TYPE_METHOD_RETURN || type == DBUS_MESSAGE_TYPE_ERROR) {
                dbus_uint32_t serial = dbus_message_get_reply_serial(m);
                for (int i = 0; i < n; i++)
                    if (serials[i] == serial) { serials[i] = flood_send(c, format, i); break; }
            }
            dbus_message_unref(m);
        }
        dbus_connection_flush(c);
    }
    return 0;
}

int main(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN);
    if (argc >= 4 && !strcmp(argv[1], "serve")) return serve(argv[2], argv[3]);
    if (argc >= 9 && !strcmp(argv[1], "calls")) return calls(argv + 2, atoi(argv[7]), atol(argv[8]));
    if (argc >= 5 && !strcmp(argv[1], "latency")) return latency(argv[2], argv[3], atoi(argv[4]));
    if (argc >= 7 && !strcmp(argv[1], "latency-connman")) return latency_connman(argv[2], argv[3], atoi(argv[4]), argv[5], argv[6]);
    if (argc >= 5 && !strcmp(argv[1], "hold")) return hold(argv[2], atoi(argv[3]), argv[4]);
    if (argc >= 8 && !strcmp(argv[1], "reeval")) return reeval(argv[2], atoi(argv[3]), argv[4], argv[5], argv[6], atoi(argv[7]));
    if (argc >= 5 && !strcmp(argv[1], "floor")) return floor_bench(argv[2], atoi(argv[3]), atoi(argv[4]));
    if (argc >= 5 && !strcmp(argv[1], "fuzz")) return fuzz(argv[2], atol(argv[3]), (unsigned)atol(argv[4]));
    if (argc >= 6 && !strcmp(argv[1], "check")) return check(argv[2], atoi(argv[3]), atoi(argv[4]), argv + 5, argc - 5);
    if (argc >= 5 && !strcmp(argv[1], "flood")) return flood(argv[2], atoi(argv[3]), argv[4]);
    if (argc >= 7 && !strcmp(argv[1], "start") && !strcmp(argv[5], "--")) return start(argv[2], argv[3], atoi(argv[4]), argv + 6);
    fprintf(stderr, "usage: see the comment at the top of dbusbench.c\n");
    return 2;
}
