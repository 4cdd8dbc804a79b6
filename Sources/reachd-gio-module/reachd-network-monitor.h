/* reachd's answer as GLib's GNetworkMonitor: the type GIO's "gio-network-monitor"
 * extension point creates (implementation "reachd", priority 35). Not exported: the module's
 * only exported symbols are g_io_module_load, g_io_module_unload and g_io_module_query. */
#pragma once

/* The module's own debug messages (which reachd answers, or why none does) come under this
 * domain: G_MESSAGES_DEBUG=reachd shows them. Defined before GLib's headers read it. */
#ifndef G_LOG_DOMAIN
#define G_LOG_DOMAIN "reachd"
#endif

#include <gio/gio.h>

G_BEGIN_DECLS

#define REACHD_BUS_NAME "io.reachd.Reachability1"
#define REACHD_OBJECT_PATH "/io/reachd/Reachability1"
#define REACHD_INTERFACE "io.reachd.Reachability1"

/* The name GIO_USE_NETWORK_MONITOR picks it by, and its place among GLib's own:
 * above networkmanager (30), below the portal (40). */
#define REACHD_NETWORK_MONITOR_NAME "reachd"
#define REACHD_NETWORK_MONITOR_PRIORITY 35

#define REACHD_TYPE_NETWORK_MONITOR (reachd_network_monitor_get_type ())
G_DECLARE_FINAL_TYPE (ReachdNetworkMonitor, reachd_network_monitor, REACHD, NETWORK_MONITOR, GObject)

typedef struct _ReachdCheckHostQueue ReachdCheckHostQueue;

/* reachd-network-monitor.c, for reachd-can-reach.c */
GDBusConnection *reachd_network_monitor_get_connection (ReachdNetworkMonitor *self);
gboolean reachd_network_monitor_has_path (ReachdNetworkMonitor *self); /* any thread */
ReachdCheckHostQueue *reachd_network_monitor_get_checks (ReachdNetworkMonitor *self);
/* Any thread: GLib's own monitor while it answers for reachd (a new reference), else NULL. */
GNetworkMonitor *reachd_network_monitor_ref_fallback (ReachdNetworkMonitor *self);
/* Any thread: how to call CheckHost now: starting reachd only where its name has an owner, or at
 * most once per CAN_REACH_ACTIVATION_INTERVAL_US while it has none. */
GDBusCallFlags reachd_network_monitor_check_host_flags (ReachdNetworkMonitor *self);

/* reachd-can-reach.c: GNetworkMonitor's can_reach, can_reach_async and can_reach_finish, and
 * the queue of CheckHost calls waiting for a place on the bus */
void reachd_network_monitor_can_reach_iface_init (GNetworkMonitorInterface *iface);
ReachdCheckHostQueue *reachd_check_host_queue_new (void);
void reachd_check_host_queue_free (ReachdCheckHostQueue *queue);

G_END_DECLS
