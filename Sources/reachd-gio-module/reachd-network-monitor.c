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
 * the GetAll that GInitable's synchronous init requires (one a bus it tries, so at most two),
 * and the init of GLib's own monitor when the module hands over to it (below).
 * Whichever bus init chose carries everything after it: signals, re-reads, CheckHost.
 *
 * Whose word counts: the module tracks the unique name that owns reachd's name (the sender of
 * the GetAll reply, then the bus's NameOwnerChanged, believed only from the bus itself) and
 * believes PropertiesChanged only from that owner. It does not lean on GDBus for this: GLib
 * checks a well-known sender only since its fix for CVE-2024-34397 (2.78.5, 2.80.1, and
 * backports), and an app may carry an older or bundled GLib.
 *
 * Never worse than GLib's own monitor (contract 6, section 3): when reachd's name has had no
 * owner (or only one answering for another network namespace) for HANDOVER_GRACE_MS, the
 * module makes the monitor GLib would have chosen without it (the extension point's others,
 * by priority: in practice networkmanager, else netlink, else GLib's base) and answers from it,
 * its properties and network-changed passed on, until reachd answers again. At either handover
 * the app sees notifies and a network-changed only where the two answers differ. */
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
/* How long reachd's name may be without an owner before GLib's own monitor answers. A restart
 * (systemd's, or D-Bus activation by the module's own re-read) takes 25-63 ms measured; by 2 s
 * the module has tried to start reachd four times (at once, 250 ms, 750 ms, 1.75 s), so a
 * reachd that can start is back well within it, even on a slow device, and the app never
 * sees a restart; one that cannot start costs the app 2 s of stale answers, about what GLib's
 * own monitor takes to notice a lost carrier (1.5 s measured). */
#define HANDOVER_GRACE_MS 2000
/* While reachd's name has no owner, can_reach lets one call in this long start reachd (D-Bus
 * activation); the others ask without starting it. A reachd that cannot start (a configuration
 * it refuses) so costs the machine one start per app per interval, whatever the app asks. */
#define CAN_REACH_ACTIVATION_INTERVAL_US (5 * G_USEC_PER_SEC)

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
  /* Thread-default when the monitor was made: signals, replies, the timers and the monitor
   * handed over to run here. */
  GMainContext *context;
  guint properties_subscription;
  guint owner_subscription;
  /* The bus-side half of properties_subscription (which GDBus subscribes without a sender, so
   * that the owner check below is the module's own): reachd's broadcasts only. */
  char *properties_rule;
  /* The unique name that owns reachd's name as far as the bus has said (the GetAll reply's
   * sender, then NameOwnerChanged), or NULL for nobody: only its PropertiesChanged count. */
  char *owner;

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

  /* reachd's name without a (usable) owner: the timer to the handover, then GLib's own monitor,
   * answering for the module, and the idle that passes its changes on. */
  GSource *grace;
  GNetworkMonitor *fallback;
  const char *fallback_name;
  GSource *follow;
  gboolean fallback_signalled;

  /* can_reach_async's calls waiting for a place on the bus. */
  ReachdCheckHostQueue *checks;

  /* For can_reach, in any thread: `fallback` is written under this lock (and read under it
   * outside the monitor's context); when a can_reach last let reachd be started; whether
   * reachd's name has an owner (atomic). */
  GMutex reach_lock;
  gint64 last_activation_us;
  gint owned;
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

/* Publishes an answer (reachd's mapped, or the handed-over monitor's): notifies each property
 * that changed (all three already hold their new values, so a handler reading the others sees
 * the new state), then emits network-changed once if any of them changed or `moved` says the
 * path did. */
static void
publish (ReachdNetworkMonitor *self, gboolean available, gboolean metered, GNetworkConnectivity connectivity,
         gboolean moved)
{
  gboolean available_changed = available != self->available;
  gboolean metered_changed = metered != self->metered;
  gboolean connectivity_changed = connectivity != self->connectivity;

  self->available = available;
  self->metered = metered;
  self->connectivity = connectivity;

  /* A handler may drop the app's last reference: keep the monitor until the last emission. */
  g_object_ref (self);
  if (available_changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NETWORK_AVAILABLE]);
  if (metered_changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NETWORK_METERED]);
  if (connectivity_changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CONNECTIVITY]);
  if (available_changed || metered_changed || connectivity_changed || moved)
    g_signal_emit_by_name (self, "network-changed", available);
  g_object_unref (self);
}

/* Maps what reachd said and publishes it, the path (Interface, the first of Gateways) included.
 * Without emit (init), only takes the values. */
static void
sync_properties (ReachdNetworkMonitor *self, gboolean emit)
{
  gboolean available, metered, path_changed;
  GNetworkConnectivity connectivity;

  map (self, &available, &metered, &connectivity);
  path_changed = g_strcmp0 (self->interface, self->published_interface) != 0
                 || g_strcmp0 (self->gateway, self->published_gateway) != 0;
  g_atomic_int_set (&self->path, has_path (self));
  if (path_changed)
    {
      g_free (self->published_interface);
      g_free (self->published_gateway);
      self->published_interface = g_strdup (self->interface);
      self->published_gateway = g_strdup (self->gateway);
    }
  if (!emit)
    {
      self->available = available;
      self->metered = metered;
      self->connectivity = connectivity;
      return;
    }
  publish (self, available, metered, connectivity, path_changed);
}

/* Runs `function` with the monitor's context as the thread-default one: what GLib's monitors
 * and GDBus attach their sources to when made. Called from the monitor's own sources, so the
 * context is this thread's already (acquired); pushed only where it is not the default. */
static gpointer
in_own_context (ReachdNetworkMonitor *self, gpointer (*function) (ReachdNetworkMonitor *self))
{
  GMainContext *current = g_main_context_get_thread_default ();
  gboolean push = self->context != (current != NULL ? current : g_main_context_default ());
  gpointer result;

  if (push)
    g_main_context_push_thread_default (self->context);
  result = function (self);
  if (push)
    g_main_context_pop_thread_default (self->context);
  return result;
}

/* Who owns reachd's name now (NULL: nobody), for the monitor's context and, as `owned`, for
 * can_reach in any thread. Takes `owner`. */
static void
set_owner (ReachdNetworkMonitor *self, char *owner)
{
  g_free (self->owner);
  self->owner = owner;
  g_atomic_int_set (&self->owned, owner != NULL);
}

/* The monitor GLib would have chosen without this module: the first of the extension point's
 * others, by priority, whose init succeeds (the portal's fails outside a sandbox, as it did
 * when GLib chose this module; NetworkManager's where it does not run). GLib's base monitor,
 * last, always succeeds. */
static gpointer
make_fallback (ReachdNetworkMonitor *self)
{
  GIOExtensionPoint *point = g_io_extension_point_lookup (G_NETWORK_MONITOR_EXTENSION_POINT_NAME);
  g_autoptr (GString) reasons = g_string_new (NULL);

  for (GList *l = point != NULL ? g_io_extension_point_get_extensions (point) : NULL; l != NULL; l = l->next)
    {
      GIOExtension *extension = l->data;
      GType type = g_io_extension_get_type (extension);
      g_autoptr (GError) error = NULL;
      GObject *monitor;

      if (g_type_is_a (type, REACHD_TYPE_NETWORK_MONITOR) || !g_type_is_a (type, G_TYPE_NETWORK_MONITOR))
        continue;
      monitor = g_initable_new (type, NULL, &error, NULL);
      if (monitor != NULL)
        {
          self->fallback_name = g_io_extension_get_name (extension);
          g_debug ("no reachd on the %s for %d ms: GLib's %s monitor (%s) answers until reachd is back%s%s",
                   self->bus, HANDOVER_GRACE_MS, self->fallback_name, G_OBJECT_TYPE_NAME (monitor),
                   reasons->len > 0 ? "; " : "", reasons->str);
          return monitor;
        }
      g_string_append_printf (reasons, "%s%s: %s", reasons->len > 0 ? "; " : "", g_io_extension_get_name (extension),
                              error->message);
    }
  g_debug ("no reachd on the %s for %d ms, and no other network monitor starts (%s): keeping the last values",
           self->bus, HANDOVER_GRACE_MS, reasons->str);
  return NULL;
}

/* The handed-over monitor's answer, published; `signalled`: it emitted network-changed itself
 * (netlink's, for a route that came or went), which is passed on even where the three
 * properties stay, as GLib's monitor would have told the app. */
static void
publish_fallback (ReachdNetworkMonitor *self, gboolean signalled)
{
  g_atomic_int_set (&self->path, g_network_monitor_get_network_available (self->fallback));
  publish (self, g_network_monitor_get_network_available (self->fallback),
           g_network_monitor_get_network_metered (self->fallback),
           g_network_monitor_get_connectivity (self->fallback), signalled);
}

static gboolean
follow_fallback (gpointer user_data)
{
  ReachdNetworkMonitor *self = user_data;
  gboolean signalled = self->fallback_signalled;

  g_clear_pointer (&self->follow, g_source_unref);
  self->fallback_signalled = FALSE;
  publish_fallback (self, signalled);
  return G_SOURCE_REMOVE;
}

/* The handed-over monitor's notifies and network-changed, gathered into one publish: GLib's
 * netlink monitor notifies network-available then emits network-changed, its networkmanager
 * monitor only notifies, and the app gets each change as from reachd, notifies then one
 * network-changed. */
static void
follow_later (ReachdNetworkMonitor *self, gboolean signalled)
{
  self->fallback_signalled |= signalled;
  if (self->follow != NULL)
    return;
  self->follow = g_idle_source_new ();
  g_source_set_callback (self->follow, follow_fallback, self, NULL);
  g_source_set_static_name (self->follow, "[reachd] follow GLib's network monitor");
  g_source_attach (self->follow, self->context);
}

static void
fallback_notified (GObject *fallback, GParamSpec *pspec, gpointer user_data)
{
  (void) fallback, (void) pspec;
  follow_later (user_data, FALSE);
}

static void
fallback_changed (GNetworkMonitor *fallback, gboolean available, gpointer user_data)
{
  (void) fallback, (void) available;
  follow_later (user_data, TRUE);
}

/* Lets go of the handed-over monitor (reachd is back, or this monitor is going). */
static void
drop_fallback (ReachdNetworkMonitor *self)
{
  GNetworkMonitor *fallback;

  if (self->follow != NULL)
    g_source_destroy (self->follow);
  g_clear_pointer (&self->follow, g_source_unref);
  self->fallback_signalled = FALSE;
  if (self->fallback == NULL)
    return;
  g_signal_handlers_disconnect_by_data (self->fallback, self);
  g_mutex_lock (&self->reach_lock);
  fallback = g_steal_pointer (&self->fallback);
  g_mutex_unlock (&self->reach_lock);
  g_object_unref (fallback);
}

static gboolean
grace_over (gpointer user_data)
{
  ReachdNetworkMonitor *self = user_data;
  GNetworkMonitor *fallback;

  g_clear_pointer (&self->grace, g_source_unref);
  fallback = in_own_context (self, make_fallback);
  if (fallback == NULL)
    return G_SOURCE_REMOVE;
  g_mutex_lock (&self->reach_lock);
  self->fallback = fallback;
  g_mutex_unlock (&self->reach_lock);
  g_signal_connect (self->fallback, "notify::network-available", G_CALLBACK (fallback_notified), self);
  g_signal_connect (self->fallback, "notify::network-metered", G_CALLBACK (fallback_notified), self);
  g_signal_connect (self->fallback, "notify::connectivity", G_CALLBACK (fallback_notified), self);
  g_signal_connect (self->fallback, "network-changed", G_CALLBACK (fallback_changed), self);
  /* Only what differs from reachd's last answer. */
  publish_fallback (self, FALSE);
  return G_SOURCE_REMOVE;
}

/* No owner of reachd's name that answers for this app: GLib's own monitor answers after the
 * grace, unless it already does or the grace runs. */
static void
reachd_away (ReachdNetworkMonitor *self)
{
  if (self->grace != NULL || self->fallback != NULL)
    return;
  self->grace = g_timeout_source_new (HANDOVER_GRACE_MS);
  g_source_set_callback (self->grace, grace_over, self, NULL);
  g_source_set_static_name (self->grace, "[reachd] hand over to GLib's network monitor");
  g_source_attach (self->grace, self->context);
}

/* Someone owns reachd's name again: the grace stops while it is read (reachd_away restarts it
 * where that read fails or finds another namespace's reachd). */
static void
stop_grace (ReachdNetworkMonitor *self)
{
  if (self->grace != NULL)
    g_source_destroy (self->grace);
  g_clear_pointer (&self->grace, g_source_unref);
}

/* PropertiesChanged of reachd's main object (the subscription filters on path and arg0), from
 * reachd's owner only: anyone may send a signal unicast to this app's connection, with any
 * path and interface, and the bus names its true sender. */
static void
properties_changed (GDBusConnection *connection, const char *sender, const char *path,
                    const char *interface, const char *signal, GVariant *parameters, gpointer user_data)
{
  ReachdNetworkMonitor *self = user_data;
  g_autoptr (GVariant) changed = NULL;
  g_autofree const char **invalidated = NULL;

  (void) connection, (void) path, (void) interface, (void) signal;
  if (self->owner == NULL || g_strcmp0 (sender, self->owner) != 0)
    {
      g_debug ("ignored PropertiesChanged from %s, which does not own %s (its owner: %s)",
               sender != NULL ? sender : "(no sender)", REACHD_BUS_NAME, self->owner != NULL ? self->owner : "nobody");
      return;
    }
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

/* GetAll of reachd's main object, as a message: its reply names who answered. */
static GDBusMessage *
get_all_message (void)
{
  GDBusMessage *message = g_dbus_message_new_method_call (REACHD_BUS_NAME, REACHD_OBJECT_PATH,
                                                          "org.freedesktop.DBus.Properties", "GetAll");

  g_dbus_message_set_body (message, g_variant_new ("(s)", REACHD_INTERFACE));
  return message;
}

/* A GetAll reply's a{sv}, and its sender (the unique name that owned reachd's name when it
 * answered) in `sender`; NULL and the error where it is an error or not an a{sv}. */
static GVariant *
get_all_reply (GDBusMessage *reply, char **sender, GError **error)
{
  GVariant *body;

  if (g_dbus_message_to_gerror (reply, error))
    return NULL;
  body = g_dbus_message_get_body (reply);
  if (body == NULL || !g_variant_is_of_type (body, G_VARIANT_TYPE ("(a{sv})")))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "GetAll answered %s, not (a{sv})",
                   body != NULL ? g_variant_get_type_string (body) : "nothing");
      return NULL;
    }
  *sender = g_strdup (g_dbus_message_get_sender (reply));
  return g_variant_get_child_value (body, 0);
}

/* One re-read on its way: its own cancellable, since a newer read may take its place while its
 * reply is already on the way to this context. */
typedef struct
{
  ReachdNetworkMonitor *self;
  GCancellable *cancellable;
} Reread;

static void
reread_free (Reread *request)
{
  g_object_unref (request->self);
  g_object_unref (request->cancellable);
  g_free (request);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Reread, reread_free)

static void
reread_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (Reread) request = user_data;
  ReachdNetworkMonitor *self = request->self;
  g_autoptr (GError) error = NULL;
  g_autoptr (GDBusMessage) reply = NULL;
  g_autoptr (GVariant) all = NULL;
  g_autofree char *sender = NULL;
  guint64 theirs;

  reply = g_dbus_connection_send_message_with_reply_finish (G_DBUS_CONNECTION (source), result, &error);
  /* Cancelled: the monitor is going, or a newer read took this one's place. */
  if (g_cancellable_is_cancelled (request->cancellable) || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  g_clear_object (&self->reread);
  if (reply != NULL)
    all = get_all_reply (reply, &sender, &error);

  if (all == NULL)
    {
      /* Not back yet, or cannot be started: keep the last values, ask again later; with nobody
       * on the name, GLib's own monitor answers after the grace. */
      if (self->owner == NULL)
        reachd_away (self);
      self->retry = g_timeout_source_new (self->retry_ms);
      g_source_set_callback (self->retry, retry_fired, self, NULL);
      g_source_set_static_name (self->retry, "[reachd] re-activate reachd");
      g_source_attach (self->retry, self->context);
      self->retry_ms = MIN (self->retry_ms * 2, RETRY_MAX_MS);
      return;
    }

  self->retry_ms = RETRY_FIRST_MS;
  /* Started by this read (activation): the bus's NameOwnerChanged may come after its reply. */
  set_owner (self, g_steal_pointer (&sender));
  theirs = network_namespace_of (all);
  self->owner_is_foreign = !shares_network_namespace (self, theirs);
  if (self->owner_is_foreign)
    {
      /* Its answer is another namespace's: not this app's reachd; read the next owner. */
      g_debug ("reachd on the %s now answers for another network namespace (net:[%" G_GUINT64_FORMAT
               "], this app: net:[%" G_GUINT64_FORMAT "]); not believed until another takes its name",
               self->bus, theirs, self->network_namespace);
      reachd_away (self);
      return;
    }
  stop_grace (self);
  read_properties (self, all);
  if (self->fallback != NULL)
    {
      /* Handed back: compared with GLib's monitor's answer, which has no path, so the path
       * reachd finds now is taken as it is; only the properties that differ are signalled. */
      g_debug ("reachd on the %s answers again, instead of GLib's %s monitor", self->bus, self->fallback_name);
      drop_fallback (self);
      g_free (self->published_interface);
      g_free (self->published_gateway);
      self->published_interface = g_strdup (self->interface);
      self->published_gateway = g_strdup (self->gateway);
    }
  sync_properties (self, TRUE);
}

/* Reads reachd again with activation allowed (reachd left, was replaced, or invalidated a
 * property), unless a read or its retry is already on its way. */
static void
reread (ReachdNetworkMonitor *self)
{
  g_autoptr (GDBusMessage) message = get_all_message ();
  Reread *request;

  if (self->reread != NULL || self->retry != NULL)
    return;
  self->reread = g_cancellable_new ();
  request = g_new0 (Reread, 1);
  request->self = g_object_ref (self);
  request->cancellable = g_object_ref (self->reread);
  g_dbus_connection_send_message_with_reply (self->connection, message, G_DBUS_SEND_MESSAGE_FLAGS_NONE,
                                             REREAD_TIMEOUT_MS, NULL, self->reread, reread_done, request);
}

/* NameOwnerChanged for reachd's name, from the bus itself (anyone may send one unicast that
 * names reachd's name: only the bus's own is believed). Leaving: keep the last values and emit
 * nothing; start it again, and after the grace GLib's own monitor answers. A new owner
 * (activated, or --replace): read it and signal what differs. Either way a read already on its
 * way may have gone to the owner that left, so it is asked again. */
static void
owner_changed (GDBusConnection *connection, const char *sender, const char *path,
               const char *interface, const char *signal, GVariant *parameters, gpointer user_data)
{
  ReachdNetworkMonitor *self = user_data;
  const char *name, *old_owner, *new_owner;

  (void) connection, (void) path, (void) interface, (void) signal;
  if (g_strcmp0 (sender, "org.freedesktop.DBus") != 0)
    {
      g_debug ("ignored NameOwnerChanged from %s, which is not the bus", sender != NULL ? sender : "(no sender)");
      return;
    }
  if (!g_variant_is_of_type (parameters, G_VARIANT_TYPE ("(sss)")))
    return;
  g_variant_get (parameters, "(&s&s&s)", &name, &old_owner, &new_owner);
  if (strcmp (name, REACHD_BUS_NAME) != 0)
    return;
  set_owner (self, new_owner[0] != '\0' ? g_strdup (new_owner) : NULL);
  self->owner_is_foreign = FALSE;
  if (self->reread != NULL)
    g_cancellable_cancel (self->reread);
  g_clear_object (&self->reread);
  if (new_owner[0] != '\0')
    {
      stop_grace (self);
      if (self->retry != NULL)
        {
          /* Back before the timer: no need to wait for it. */
          g_source_destroy (self->retry);
          g_clear_pointer (&self->retry, g_source_unref);
        }
    }
  else
    reachd_away (self);
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

/* The bus's own match rule for reachd's PropertiesChanged: AddMatch and RemoveMatch sent as
 * GDBus sends its own, without waiting for the reply (the bus applies it before any later
 * message of this connection, the GetAll among them). */
static void
match_rule (GDBusConnection *connection, const char *method, const char *rule)
{
  g_dbus_connection_call (connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                          method, g_variant_new ("(s)", rule), NULL, G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL, NULL);
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
  /* The bus passes on only reachd's broadcasts (sender= in its rule); unicast signals from
   * anyone reach the connection whatever the rule, and GDBus is given no sender, so that every
   * one of them comes to properties_changed, which believes only the owner. */
  self->properties_rule = g_strdup ("type='signal',sender='" REACHD_BUS_NAME "',"
                                    "interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',"
                                    "path='" REACHD_OBJECT_PATH "',arg0='" REACHD_INTERFACE "'");
  match_rule (connection, "AddMatch", self->properties_rule);
  self->properties_subscription =
    g_dbus_connection_signal_subscribe (connection, NULL, "org.freedesktop.DBus.Properties",
                                        "PropertiesChanged", REACHD_OBJECT_PATH, REACHD_INTERFACE,
                                        G_DBUS_SIGNAL_FLAGS_NO_MATCH_RULE, properties_changed, self, NULL);
}

static void
unsubscribe (ReachdNetworkMonitor *self, GDBusConnection *connection)
{
  if (self->properties_subscription != 0)
    g_dbus_connection_signal_unsubscribe (connection, self->properties_subscription);
  if (self->properties_rule != NULL && !g_dbus_connection_is_closed (connection))
    match_rule (connection, "RemoveMatch", self->properties_rule);
  g_clear_pointer (&self->properties_rule, g_free);
  if (self->owner_subscription != 0)
    g_dbus_connection_signal_unsubscribe (connection, self->owner_subscription);
  self->properties_subscription = 0;
  self->owner_subscription = 0;
}

/* Looks for reachd on one bus (`bus` names it): keeps the connection, subscribed and with
 * reachd's values and owner read, where a reachd answers for this app's network namespace;
 * otherwise leaves nothing behind and says why. */
static gboolean
use_bus (ReachdNetworkMonitor *self, GBusType type, const char *bus, GCancellable *cancellable, GError **error)
{
  g_autoptr (GDBusConnection) connection = NULL;
  g_autoptr (GDBusMessage) message = get_all_message ();
  g_autoptr (GDBusMessage) reply = NULL;
  g_autoptr (GVariant) all = NULL;
  g_autoptr (GVariant) level = NULL;
  g_autoptr (GError) local_error = NULL;
  g_autofree char *owner = NULL;
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
  /* The one round trip: with activation, so a first app starts reachd. Its reply's sender is
   * the owner, and NameOwnerChanged says each owner after it. */
  reply = g_dbus_connection_send_message_with_reply_sync (connection, message, G_DBUS_SEND_MESSAGE_FLAGS_NONE,
                                                          INIT_TIMEOUT_MS, NULL, cancellable, &local_error);
  if (reply != NULL)
    all = get_all_reply (reply, &owner, &local_error);
  if (all == NULL)
    {
      unsubscribe (self, connection);
      g_dbus_error_strip_remote_error (local_error);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   "reachd (%s on the %s) did not answer: %s", REACHD_BUS_NAME, bus, local_error->message);
      return FALSE;
    }
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
  set_owner (self, g_steal_pointer (&owner));
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

GNetworkMonitor *
reachd_network_monitor_ref_fallback (ReachdNetworkMonitor *self)
{
  GNetworkMonitor *fallback;

  g_mutex_lock (&self->reach_lock);
  fallback = self->fallback != NULL ? g_object_ref (self->fallback) : NULL;
  g_mutex_unlock (&self->reach_lock);
  return fallback;
}

GDBusCallFlags
reachd_network_monitor_check_host_flags (ReachdNetworkMonitor *self)
{
  gint64 now = g_get_monotonic_time ();
  gboolean activate = FALSE;

  if (g_atomic_int_get (&self->owned))
    return G_DBUS_CALL_FLAGS_NONE;
  g_mutex_lock (&self->reach_lock);
  if (self->last_activation_us == 0 || now - self->last_activation_us >= CAN_REACH_ACTIVATION_INTERVAL_US)
    {
      self->last_activation_us = now;
      activate = TRUE;
    }
  g_mutex_unlock (&self->reach_lock);
  return activate ? G_DBUS_CALL_FLAGS_NONE : G_DBUS_CALL_FLAGS_NO_AUTO_START;
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
  stop_grace (self);
  drop_fallback (self);
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
  g_free (self->owner);
  reachd_check_host_queue_free (self->checks);
  g_mutex_clear (&self->reach_lock);

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
  g_mutex_init (&self->reach_lock);
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
