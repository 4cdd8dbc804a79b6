/* ReachdNetworkMonitor: GNetworkMonitor's three properties and network-changed from reachd's
 * main object (contract 3, section 1.2), on the nearest bus whose reachd answers for the app's
 * network namespace: the session bus's, else the system bus's (contract 4, section 2.1).
 *
 * The change path is two functions, as in GLib's own monitors: properties_changed() keeps the
 * few reachd properties the mapping needs, sync_properties() maps them, notifies each GLib
 * property that changed and then emits network-changed once if any of them, or the path
 * (Interface, the first of Gateways), changed.
 *
 * Runs inside other people's processes: no thread of its own (GDBus's worker is GLib's), no
 * timer while reachd is on the bus, and nothing that blocks the caller's main context except
 * the GetAll that GInitable's synchronous init requires (one a bus it tries, so at most two).
 * Whichever bus init chose carries everything after it: signals, re-reads, CheckHost. */
#include "reachd-network-monitor.h"

#include <string.h>
#include <sys/stat.h>

/* Activation of reachd takes about 10 ms; the contract bounds init at 2 s a bus. A bus without
 * reachd says so at once (ServiceUnknown), so init waits that long only for a reachd that is
 * being started and hangs: at most twice, with both buses. */
#define INIT_TIMEOUT_MS 2000
/* Reading a returning reachd again, activation included. */
#define REREAD_TIMEOUT_MS 5000
/* Re-activation after reachd left: at once, then 250 ms doubling to 30 s, as the Swift client. */
#define RETRY_FIRST_MS 250
#define RETRY_MAX_MS 30000

/* reachd's Level, in its order: each implies the ones before. */
typedef enum
{
  LEVEL_UNKNOWN,
  LEVEL_NONE,
  LEVEL_LINK,
  LEVEL_ROUTABLE,
  LEVEL_DNS,
  LEVEL_ONLINE,
} Level;

/* reachd's Connectivity (NetworkManager's check, or reachd's own view of it). */
typedef enum
{
  CHECK_UNKNOWN,
  CHECK_NONE,
  CHECK_PORTAL,
  CHECK_LIMITED,
  CHECK_FULL,
} Check;

enum
{
  PROP_0,
  PROP_NETWORK_AVAILABLE,
  PROP_NETWORK_METERED,
  PROP_CONNECTIVITY,
  N_PROPERTIES
};

static GParamSpec *properties[N_PROPERTIES];

struct _ReachdNetworkMonitor
{
  GObject parent_instance;

  GDBusConnection *connection;
  /* Which bus the connection is, for messages: "session bus" or "system bus". */
  const char *bus;
  /* This app's network namespace (the inode of /proc/self/ns/net), or 0 where /proc cannot
   * tell: then any reachd is taken at its word, as before reachd published its own. */
  guint64 network_namespace;
  /* The name's owner answers for another network namespace (it came after init, say from a
   * container that shares the bus): its values and signals are not this app's. */
  gboolean owner_is_foreign;
  /* Thread-default when the monitor was made: signals, replies and the retry timer run here. */
  GMainContext *context;
  guint properties_subscription;
  guint owner_subscription;

  /* What reachd said last (its names, read from GetAll and PropertiesChanged). */
  Level level;
  Check check;
  gboolean reachd_metered;
  char *interface;
  char *gateway;

  /* What this monitor published last. */
  gboolean available;
  gboolean metered;
  GNetworkConnectivity connectivity;
  char *published_interface;
  char *published_gateway;
  /* has_path() as last published, for can_reach in any thread (atomic). */
  gint path;

  /* reachd away or replaced: a GetAll in flight, or the timer before the next one. */
  GCancellable *reread;
  GSource *retry;
  guint retry_ms;

  /* can_reach_async's calls waiting for a place on the bus. */
  ReachdCheckHostQueue *checks;
};

static void reachd_network_monitor_iface_init (GNetworkMonitorInterface *iface);
static void reachd_network_monitor_initable_iface_init (GInitableIface *iface);

/* GInitable first: it is GNetworkMonitor's prerequisite. */
G_DEFINE_TYPE_WITH_CODE (ReachdNetworkMonitor, reachd_network_monitor, G_TYPE_OBJECT,
                         G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE,
                                                reachd_network_monitor_initable_iface_init)
                         G_IMPLEMENT_INTERFACE (G_TYPE_NETWORK_MONITOR,
                                                reachd_network_monitor_iface_init))

static void reread (ReachdNetworkMonitor *self);

static Level
level_from_string (const char *level)
{
  static const char *const names[] = { "unknown", "none", "link", "routable", "dns", "online" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (strcmp (level, names[i]) == 0)
      return (Level) i;
  return LEVEL_UNKNOWN; /* a level this version does not know claims nothing */
}

static Check
check_from_string (const char *check)
{
  static const char *const names[] = { "unknown", "none", "portal", "limited", "full" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (strcmp (check, names[i]) == 0)
      return (Check) i;
  return CHECK_UNKNOWN;
}

/* A path leaves this machine: the network is at least routable, or a captive portal holds the
 * path reachd found (Interface is kept then). */
static gboolean
has_path (ReachdNetworkMonitor *self)
{
  return self->level >= LEVEL_ROUTABLE || self->interface[0] != '\0';
}

/* The inode of this process's /proc/self/ns/net, as reachd publishes its own; 0 where /proc is
 * not mounted or hides it. */
static guint64
own_network_namespace (void)
{
  struct stat status;

  if (stat ("/proc/self/ns/net", &status) != 0)
    return 0;
  return status.st_ino;
}

/* NetworkNamespace from an a{sv} of reachd's main object; 0 from a reachd older than interface
 * version 4, which does not say. */
static guint64
network_namespace_of (GVariant *dictionary)
{
  g_autoptr (GVariant) value = g_variant_lookup_value (dictionary, "NetworkNamespace", G_VARIANT_TYPE_UINT64);

  return value != NULL ? g_variant_get_uint64 (value) : 0;
}

/* Whether a reachd in namespace `theirs` answers for this app's: unknown on either side is
 * taken as yes, since nothing can be compared. */
static gboolean
shares_network_namespace (ReachdNetworkMonitor *self, guint64 theirs)
{
  return theirs == 0 || self->network_namespace == 0 || theirs == self->network_namespace;
}

/* Keeps the properties the mapping and the path need from an a{sv} of reachd's main object. */
static void
read_properties (ReachdNetworkMonitor *self, GVariant *dictionary)
{
  GVariantIter iter;
  const char *name;
  GVariant *value;

  g_variant_iter_init (&iter, dictionary);
  while (g_variant_iter_loop (&iter, "{&sv}", &name, &value))
    {
      if (strcmp (name, "Level") == 0 && g_variant_is_of_type (value, G_VARIANT_TYPE_STRING))
        self->level = level_from_string (g_variant_get_string (value, NULL));
      else if (strcmp (name, "Connectivity") == 0 && g_variant_is_of_type (value, G_VARIANT_TYPE_STRING))
        self->check = check_from_string (g_variant_get_string (value, NULL));
      else if (strcmp (name, "Metered") == 0 && g_variant_is_of_type (value, G_VARIANT_TYPE_BOOLEAN))
        self->reachd_metered = g_variant_get_boolean (value);
      else if (strcmp (name, "Interface") == 0 && g_variant_is_of_type (value, G_VARIANT_TYPE_STRING))
        {
          g_free (self->interface);
          self->interface = g_variant_dup_string (value, NULL);
        }
      else if (strcmp (name, "Gateways") == 0 && g_variant_is_of_type (value, G_VARIANT_TYPE_STRING_ARRAY))
        {
          g_free (self->gateway);
          if (g_variant_n_children (value) > 0)
            g_variant_get_child (value, 0, "s", &self->gateway);
          else
            self->gateway = g_strdup ("");
        }
    }
}

/* The mapping table of contract 3 section 1.2, first row that fits:
 *   Level link, none or unknown          -> not available, LOCAL, not metered
 *     (except a captive portal on the path reachd found: available, PORTAL)
 *   Connectivity portal                  -> available, PORTAL
 *   Connectivity limited, or none        -> available, LIMITED
 *   Level online; routable or dns        -> available, FULL
 * reachd's Level already says whether a check found the Internet (online); routable or dns
 * with nothing against it is FULL, as GLib says when nothing checks. */
static void
map (ReachdNetworkMonitor *self, gboolean *available, gboolean *metered, GNetworkConnectivity *connectivity)
{
  if (self->check == CHECK_PORTAL && has_path (self))
    *connectivity = G_NETWORK_CONNECTIVITY_PORTAL;
  else if (self->level < LEVEL_ROUTABLE)
    *connectivity = G_NETWORK_CONNECTIVITY_LOCAL;
  else if (self->check == CHECK_LIMITED || self->check == CHECK_NONE)
    *connectivity = G_NETWORK_CONNECTIVITY_LIMITED;
  else
    *connectivity = G_NETWORK_CONNECTIVITY_FULL;
  *available = *connectivity != G_NETWORK_CONNECTIVITY_LOCAL;
  *metered = *available && self->reachd_metered;
}

/* Maps what reachd said, notifies each property that changed (all three already hold their new
 * values, so a handler reading the others sees the new state), then emits network-changed once
 * if any of them or the path changed. Without emit (init), only takes the values. */
static void
sync_properties (ReachdNetworkMonitor *self, gboolean emit)
{
  gboolean available, metered;
  GNetworkConnectivity connectivity;
  gboolean available_changed, metered_changed, connectivity_changed, path_changed;

  map (self, &available, &metered, &connectivity);
  available_changed = available != self->available;
  metered_changed = metered != self->metered;
  connectivity_changed = connectivity != self->connectivity;
  path_changed = g_strcmp0 (self->interface, self->published_interface) != 0
                 || g_strcmp0 (self->gateway, self->published_gateway) != 0;
  self->available = available;
  self->metered = metered;
  self->connectivity = connectivity;
  g_atomic_int_set (&self->path, has_path (self));
  if (path_changed)
    {
      g_free (self->published_interface);
      g_free (self->published_gateway);
      self->published_interface = g_strdup (self->interface);
      self->published_gateway = g_strdup (self->gateway);
    }
  if (!emit)
    return;

  /* A handler may drop the app's last reference: keep the monitor until the last emission. */
  g_object_ref (self);
  if (available_changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NETWORK_AVAILABLE]);
  if (metered_changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NETWORK_METERED]);
  if (connectivity_changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CONNECTIVITY]);
  if (available_changed || metered_changed || connectivity_changed || path_changed)
    g_signal_emit_by_name (self, "network-changed", available);
  g_object_unref (self);
}

/* PropertiesChanged of reachd's main object (the subscription filters on path and arg0). */
static void
properties_changed (GDBusConnection *connection, const char *sender, const char *path,
                    const char *interface, const char *signal, GVariant *parameters, gpointer user_data)
{
  ReachdNetworkMonitor *self = user_data;
  g_autoptr (GVariant) changed = NULL;
  g_autofree const char **invalidated = NULL;

  (void) connection, (void) sender, (void) path, (void) interface, (void) signal;
  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(sa{sv}as)")))
    return;
  /* A GetAll in flight was answered after every change announced before its reply: it says
   * more than these. */
  if (self->reread != NULL || self->owner_is_foreign)
    return;

  g_variant_get (parameters, "(&s@a{sv}^a&s)", NULL, &changed, &invalidated);
  read_properties (self, changed);
  /* reachd announces values, never invalidations; should one come, ask. */
  if (invalidated[0] != NULL)
    {
      reread (self);
      return;
    }
  sync_properties (self, TRUE);
}

static gboolean
retry_fired (gpointer user_data)
{
  ReachdNetworkMonitor *self = user_data;

  g_clear_pointer (&self->retry, g_source_unref);
  reread (self);
  return G_SOURCE_REMOVE;
}

static void
reread_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (ReachdNetworkMonitor) self = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GVariant) reply = NULL;
  g_autoptr (GVariant) all = NULL;
  guint64 theirs;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  /* Cancelled: the monitor is going, or a newer read took this one's place. */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  g_clear_object (&self->reread);

  if (reply == NULL)
    {
      /* Not back yet, or cannot be started: keep the last values, ask again later. */
      self->retry = g_timeout_source_new (self->retry_ms);
      g_source_set_callback (self->retry, retry_fired, self, NULL);
      g_source_set_static_name (self->retry, "[reachd] re-activate reachd");
      g_source_attach (self->retry, self->context);
      self->retry_ms = MIN (self->retry_ms * 2, RETRY_MAX_MS);
      return;
    }

  self->retry_ms = RETRY_FIRST_MS;
  g_variant_get (reply, "(@a{sv})", &all);
  theirs = network_namespace_of (all);
  self->owner_is_foreign = !shares_network_namespace (self, theirs);
  if (self->owner_is_foreign)
    {
      /* Its answer is another namespace's: keep the last values, and read the next owner. */
      g_debug ("reachd on the %s now answers for another network namespace (net:[%" G_GUINT64_FORMAT
               "], this app: net:[%" G_GUINT64_FORMAT "]); keeping the last values until another takes its name",
               self->bus, theirs, self->network_namespace);
      return;
    }
  read_properties (self, all);
  sync_properties (self, TRUE);
}

/* Reads reachd again with activation allowed (reachd left, was replaced, or invalidated a
 * property), unless a read or its retry is already on its way. */
static void
reread (ReachdNetworkMonitor *self)
{
  if (self->reread != NULL || self->retry != NULL)
    return;
  self->reread = g_cancellable_new ();
  g_dbus_connection_call (self->connection, REACHD_BUS_NAME, REACHD_OBJECT_PATH,
                          "org.freedesktop.DBus.Properties", "GetAll",
                          g_variant_new ("(s)", REACHD_INTERFACE), G_VARIANT_TYPE ("(a{sv})"),
                          G_DBUS_CALL_FLAGS_NONE, REREAD_TIMEOUT_MS, self->reread,
                          reread_done, g_object_ref (self));
}

/* NameOwnerChanged for reachd's name. Leaving: keep the last values and emit nothing; start
 * it again. A new owner (activated, or --replace): read it and signal what differs. Either way
 * a read already on its way may have gone to the owner that left, so it is asked again. */
static void
owner_changed (GDBusConnection *connection, const char *sender, const char *path,
               const char *interface, const char *signal, GVariant *parameters, gpointer user_data)
{
  ReachdNetworkMonitor *self = user_data;
  const char *name, *old_owner, *new_owner;

  (void) connection, (void) sender, (void) path, (void) interface, (void) signal;
  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(sss)")))
    return;
  g_variant_get (parameters, "(&s&s&s)", &name, &old_owner, &new_owner);
  if (strcmp (name, REACHD_BUS_NAME) != 0)
    return;
  if (self->reread != NULL)
    g_cancellable_cancel (self->reread);
  g_clear_object (&self->reread);
  if (new_owner[0] != '\0' && self->retry != NULL)
    {
      /* Back before the timer: no need to wait for it. */
      g_source_destroy (self->retry);
      g_clear_pointer (&self->retry, g_source_unref);
    }
  reread (self);
}

/* Connecting to the session bus would start one (dbus-launch) when none is known; a network
 * monitor must not do that inside an app, so without an address the session bus is not tried. */
static gboolean
session_bus_is_known (GError **error)
{
  const char *address = g_getenv ("DBUS_SESSION_BUS_ADDRESS");
  const char *runtime = g_getenv ("XDG_RUNTIME_DIR");
  g_autofree char *socket = NULL;

  if (address != NULL && address[0] != '\0')
    return TRUE;
  if (runtime != NULL && runtime[0] != '\0')
    {
      socket = g_build_filename (runtime, "bus", NULL);
      if (g_file_test (socket, G_FILE_TEST_EXISTS))
        return TRUE;
    }
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
               "no session bus (DBUS_SESSION_BUS_ADDRESS is unset and there is no $XDG_RUNTIME_DIR/bus)");
  return FALSE;
}

/* A container or a minimal system may have no system bus: connecting would fail anyway, but
 * only after a look at a socket that is not there, so it is not tried. */
static gboolean
system_bus_exists (GError **error)
{
  const char *address = g_getenv ("DBUS_SYSTEM_BUS_ADDRESS");

  if (address != NULL && address[0] != '\0')
    return TRUE;
  if (g_file_test ("/run/dbus/system_bus_socket", G_FILE_TEST_EXISTS))
    return TRUE;
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
               "no system bus (DBUS_SYSTEM_BUS_ADDRESS is unset and there is no /run/dbus/system_bus_socket)");
  return FALSE;
}

static void
subscribe (ReachdNetworkMonitor *self, GDBusConnection *connection)
{
  /* This rule is the one GDBus itself adds to follow the owner of a well-known sender, so the
   * bus holds one rule for both. */
  self->owner_subscription =
    g_dbus_connection_signal_subscribe (connection, "org.freedesktop.DBus", "org.freedesktop.DBus",
                                        "NameOwnerChanged", "/org/freedesktop/DBus", REACHD_BUS_NAME,
                                        G_DBUS_SIGNAL_FLAGS_NONE, owner_changed, self, NULL);
  self->properties_subscription =
    g_dbus_connection_signal_subscribe (connection, REACHD_BUS_NAME, "org.freedesktop.DBus.Properties",
                                        "PropertiesChanged", REACHD_OBJECT_PATH, REACHD_INTERFACE,
                                        G_DBUS_SIGNAL_FLAGS_NONE, properties_changed, self, NULL);
}

static void
unsubscribe (ReachdNetworkMonitor *self, GDBusConnection *connection)
{
  if (self->properties_subscription != 0)
    g_dbus_connection_signal_unsubscribe (connection, self->properties_subscription);
  if (self->owner_subscription != 0)
    g_dbus_connection_signal_unsubscribe (connection, self->owner_subscription);
  self->properties_subscription = 0;
  self->owner_subscription = 0;
}

/* Looks for reachd on one bus (`bus` names it): keeps the connection, subscribed and with
 * reachd's values read, where a reachd answers for this app's network namespace; otherwise
 * leaves nothing behind and says why. */
static gboolean
use_bus (ReachdNetworkMonitor *self, GBusType type, const char *bus, GCancellable *cancellable, GError **error)
{
  g_autoptr (GDBusConnection) connection = NULL;
  g_autoptr (GVariant) reply = NULL;
  g_autoptr (GVariant) all = NULL;
  g_autoptr (GVariant) level = NULL;
  g_autoptr (GError) local_error = NULL;
  guint64 theirs;

  if (!(type == G_BUS_TYPE_SESSION ? session_bus_is_known (error) : system_bus_exists (error)))
    return FALSE;
  connection = g_bus_get_sync (type, cancellable, &local_error);
  if (connection == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "cannot connect to the %s: %s", bus, local_error->message);
      return FALSE;
    }

  /* Subscribed before GetAll, so that no change after its reply is missed. A change reachd
   * announces during the round trip itself arrives after the reply and is applied on top of it,
   * as GDBusProxy does: the app may see it, once, after init. */
  subscribe (self, connection);
  /* The one round trip: with activation, so a first app starts reachd. */
  reply = g_dbus_connection_call_sync (connection, REACHD_BUS_NAME, REACHD_OBJECT_PATH,
                                       "org.freedesktop.DBus.Properties", "GetAll",
                                       g_variant_new ("(s)", REACHD_INTERFACE), G_VARIANT_TYPE ("(a{sv})"),
                                       G_DBUS_CALL_FLAGS_NONE, INIT_TIMEOUT_MS, cancellable, &local_error);
  if (reply == NULL)
    {
      unsubscribe (self, connection);
      g_dbus_error_strip_remote_error (local_error);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   "reachd (%s on the %s) did not answer: %s", REACHD_BUS_NAME, bus, local_error->message);
      return FALSE;
    }
  g_variant_get (reply, "(@a{sv})", &all);
  theirs = network_namespace_of (all);
  if (!shares_network_namespace (self, theirs))
    {
      /* Its routes and interfaces are another machine's, as far as this app is concerned. */
      unsubscribe (self, connection);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "reachd on the %s answers for another network namespace (net:[%" G_GUINT64_FORMAT
                   "], this app: net:[%" G_GUINT64_FORMAT "])", bus, theirs, self->network_namespace);
      return FALSE;
    }
  level = g_variant_lookup_value (all, "Level", G_VARIANT_TYPE_STRING);
  if (level == NULL)
    {
      unsubscribe (self, connection);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   "reachd on the %s is too old: it has no Level property (interface version 2 is needed)", bus);
      return FALSE;
    }
  read_properties (self, all);
  self->connection = g_steal_pointer (&connection);
  self->bus = bus;
  return TRUE;
}

/* The nearest reachd that answers for this app's network namespace: the session bus's, else
 * the system bus's (running or activatable); else init fails with every bus's reason, and GIO
 * picks GLib's own monitor. */
static gboolean
reachd_network_monitor_initable_init (GInitable *initable, GCancellable *cancellable, GError **error)
{
  ReachdNetworkMonitor *self = REACHD_NETWORK_MONITOR (initable);
  static const struct
  {
    GBusType type;
    const char *name;
  } order[] = {
    { G_BUS_TYPE_SESSION, "session bus" },
    { G_BUS_TYPE_SYSTEM, "system bus" },
  };
  g_autoptr (GString) reasons = g_string_new (NULL);
  gint code = G_IO_ERROR_FAILED;

  if (self->connection != NULL)
    return TRUE;
  self->network_namespace = own_network_namespace ();
  if (self->context == NULL)
    self->context = g_main_context_ref_thread_default ();

  for (guint i = 0; i < G_N_ELEMENTS (order); i++)
    {
      g_autoptr (GError) skipped = NULL;

      if (use_bus (self, order[i].type, order[i].name, cancellable, &skipped))
        {
          g_debug ("reachd on the %s answers%s%s", order[i].name, reasons->len > 0 ? "; " : "", reasons->str);
          sync_properties (self, FALSE);
          return TRUE;
        }
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
      /* The nearest bus's reason gives the code. */
      if (reasons->len == 0)
        code = skipped->code;
      else
        g_string_append (reasons, "; ");
      g_string_append (reasons, skipped->message);
    }
  g_string_append (reasons, "; GLib's own network monitor answers instead");
  g_debug ("%s", reasons->str);
  g_set_error_literal (error, G_IO_ERROR, code, reasons->str);
  return FALSE;
}

GDBusConnection *
reachd_network_monitor_get_connection (ReachdNetworkMonitor *self)
{
  return self->connection;
}

gboolean
reachd_network_monitor_has_path (ReachdNetworkMonitor *self)
{
  return g_atomic_int_get (&self->path);
}

ReachdCheckHostQueue *
reachd_network_monitor_get_checks (ReachdNetworkMonitor *self)
{
  return self->checks;
}

static void
reachd_network_monitor_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  ReachdNetworkMonitor *self = REACHD_NETWORK_MONITOR (object);

  switch (prop_id)
    {
    case PROP_NETWORK_AVAILABLE:
      g_value_set_boolean (value, self->available);
      break;
    case PROP_NETWORK_METERED:
      g_value_set_boolean (value, self->metered);
      break;
    case PROP_CONNECTIVITY:
      g_value_set_enum (value, self->connectivity);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
    }
}

static void
reachd_network_monitor_dispose (GObject *object)
{
  ReachdNetworkMonitor *self = REACHD_NETWORK_MONITOR (object);

  if (self->connection != NULL)
    unsubscribe (self, self->connection);
  if (self->reread != NULL)
    g_cancellable_cancel (self->reread);
  g_clear_object (&self->reread);
  if (self->retry != NULL)
    g_source_destroy (self->retry);
  g_clear_pointer (&self->retry, g_source_unref);
  g_clear_object (&self->connection);
  g_clear_pointer (&self->context, g_main_context_unref);

  G_OBJECT_CLASS (reachd_network_monitor_parent_class)->dispose (object);
}

static void
reachd_network_monitor_finalize (GObject *object)
{
  ReachdNetworkMonitor *self = REACHD_NETWORK_MONITOR (object);

  g_free (self->interface);
  g_free (self->gateway);
  g_free (self->published_interface);
  g_free (self->published_gateway);
  reachd_check_host_queue_free (self->checks);

  G_OBJECT_CLASS (reachd_network_monitor_parent_class)->finalize (object);
}

static void
reachd_network_monitor_init (ReachdNetworkMonitor *self)
{
  self->interface = g_strdup ("");
  self->gateway = g_strdup ("");
  self->connectivity = G_NETWORK_CONNECTIVITY_LOCAL;
  self->retry_ms = RETRY_FIRST_MS;
  self->checks = reachd_check_host_queue_new ();
}

static void
reachd_network_monitor_class_init (ReachdNetworkMonitorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = reachd_network_monitor_get_property;
  object_class->dispose = reachd_network_monitor_dispose;
  object_class->finalize = reachd_network_monitor_finalize;

  g_object_class_override_property (object_class, PROP_NETWORK_AVAILABLE, "network-available");
  g_object_class_override_property (object_class, PROP_NETWORK_METERED, "network-metered");
  g_object_class_override_property (object_class, PROP_CONNECTIVITY, "connectivity");
  properties[PROP_NETWORK_AVAILABLE] = g_object_class_find_property (object_class, "network-available");
  properties[PROP_NETWORK_METERED] = g_object_class_find_property (object_class, "network-metered");
  properties[PROP_CONNECTIVITY] = g_object_class_find_property (object_class, "connectivity");
}

static void
reachd_network_monitor_iface_init (GNetworkMonitorInterface *iface)
{
  reachd_network_monitor_can_reach_iface_init (iface);
}

static void
reachd_network_monitor_initable_iface_init (GInitableIface *iface)
{
  iface->init = reachd_network_monitor_initable_init;
}
