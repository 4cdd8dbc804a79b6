/* g_network_monitor_can_reach() and its async form through reachd's CheckHost (contract 3,
 * section 1.2). reachd resolves a name itself, fairly and with its own timeout; the port is
 * not part of the answer. Sync and async share host_of() and answer(), so they agree.
 *
 * Never worse than GLib's own monitor (contract 7, section 4): while GLib's monitor answers for
 * the module (reachd gone past the grace), it answers can_reach too; while reachd's name has no
 * owner, a call starts reachd at most once per CAN_REACH_ACTIVATION_INTERVAL_US, and one that
 * finds reachd away is answered as GLib's base monitor would, from whether a path is known.
 *
 * The async form keeps at most CHECK_HOST_IN_FLIGHT calls on the bus and queues the rest: the
 * connection is the app's, and a bus limits the replies one connection may await (128 on a
 * bus with dbus-daemon's default limits), which the app's own calls need too. reachd serves
 * one client's names two at a time anyway. A queued call can be called from any thread; it
 * runs, answers and is cancelled in the thread-default context of its caller, as GTask does. */
#include "reachd-network-monitor.h"

#include <string.h>

/* reachd answers within its resolver timeout (5 s) plus its fair queue; the sync form blocks
 * its caller at most this long. */
#define CHECK_HOST_TIMEOUT_MS 10000
#define CHECK_HOST_IN_FLIGHT 32

/* SCNetworkReachabilityFlags as CheckHost answers them: a captive portal on the default route
 * adds these two to a host's Reachable. */
#define FLAG_CONNECTION_REQUIRED (1u << 2)
#define FLAG_INTERVENTION_REQUIRED (1u << 4)

struct _ReachdCheckHostQueue
{
  GMutex lock;
  GQueue waiting; /* GTask, one reference each */
  guint in_flight;
};

/* A GTask's data: what CheckHost is asked, and while it waits, the source that answers its
 * cancellation. */
typedef struct
{
  char *host;
  GSource *cancelled;
} Check;

static void
check_free (gpointer data)
{
  Check *check = data;

  g_free (check->host);
  g_free (check);
}

ReachdCheckHostQueue *
reachd_check_host_queue_new (void)
{
  ReachdCheckHostQueue *queue = g_new0 (ReachdCheckHostQueue, 1);

  g_mutex_init (&queue->lock);
  g_queue_init (&queue->waiting);
  return queue;
}

void
reachd_check_host_queue_free (ReachdCheckHostQueue *queue)
{
  /* Each waiting task holds the monitor, so none is left when the monitor goes. */
  g_assert (g_queue_is_empty (&queue->waiting));
  g_mutex_clear (&queue->lock);
  g_free (queue);
}

/* What CheckHost is asked about: an address literal or a host name. */
static char *
host_of (GSocketConnectable *connectable, GError **error)
{
  if (G_IS_INET_SOCKET_ADDRESS (connectable))
    {
      GInetSocketAddress *socket_address = G_INET_SOCKET_ADDRESS (connectable);
      GInetAddress *address = g_inet_socket_address_get_address (socket_address);
      g_autofree char *literal = g_inet_address_to_string (address);
      guint32 scope = g_inet_socket_address_get_scope_id (socket_address);

      /* reachd takes a zone by index (fe80::1%2) as well as by name. */
      if (g_inet_address_get_family (address) == G_SOCKET_FAMILY_IPV6 && scope != 0)
        return g_strdup_printf ("%s%%%u", literal, scope);
      return g_steal_pointer (&literal);
    }
  if (G_IS_NETWORK_ADDRESS (connectable))
    return g_strdup (g_network_address_get_hostname (G_NETWORK_ADDRESS (connectable)));
  if (G_IS_NETWORK_SERVICE (connectable))
    return g_strdup (g_network_service_get_domain (G_NETWORK_SERVICE (connectable)));
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
               "reachd judges IP hosts: give a GNetworkAddress, a GNetworkService or a GInetSocketAddress, not a %s",
               G_OBJECT_TYPE_NAME (connectable));
  return NULL;
}

/* The bus's answer for a reachd that is not on it: not started (the call did not allow it), or
 * its start failed. */
static gboolean
reachd_is_away (const char *remote_error)
{
  return remote_error != NULL
         && (strcmp (remote_error, "org.freedesktop.DBus.Error.ServiceUnknown") == 0
             || strcmp (remote_error, "org.freedesktop.DBus.Error.NameHasNoOwner") == 0
             || g_str_has_prefix (remote_error, "org.freedesktop.DBus.Error.Spawn."));
}

/* CheckHost's reply, or its error, as can_reach answers.
 *
 * Status 0 with no flags is all reachd says both of a name that did not resolve and of an
 * address no route leads to, so for a name the sentence gives both; an address literal has
 * nothing to resolve. */
static gboolean
answer (ReachdNetworkMonitor *self, const char *host, GVariant *reply, GError *call_error, GError **error)
{
  gint32 status;
  guint32 flags;

  if (reply == NULL)
    {
      g_autofree char *remote = g_dbus_error_get_remote_error (call_error);

      if (g_error_matches (call_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_propagate_error (error, g_error_copy (call_error));
          return FALSE;
        }
      if (reachd_is_away (remote))
        {
          /* Not started (or it could not start): what GLib's base monitor answers with the
           * path last known. GLib's own monitor takes over after the grace. */
          if (reachd_network_monitor_has_path (self))
            return TRUE;
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NETWORK_UNREACHABLE, "Network unreachable: no path out of this machine is known");
          return FALSE;
        }
      g_dbus_error_strip_remote_error (call_error);
      if (g_strcmp0 (remote, REACHD_INTERFACE ".Error.InvalidHost") == 0)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "%s", call_error->message);
      else
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "reachd could not judge %s: %s", host, call_error->message);
      return FALSE;
    }

  g_variant_get (reply, "(iu)", &status, &flags);
  if (status >= 1)
    return TRUE;
  if (status < 0)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "reachd does not know yet whether %s can be reached", host);
  else if (!reachd_network_monitor_has_path (self))
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NETWORK_UNREACHABLE, "Network unreachable: reachd sees no path out of this machine");
  else if ((flags & (FLAG_CONNECTION_REQUIRED | FLAG_INTERVENTION_REQUIRED)) == (FLAG_CONNECTION_REQUIRED | FLAG_INTERVENTION_REQUIRED))
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_HOST_UNREACHABLE,
                 "Host unreachable: a captive portal stands in the way to %s (sign in to the network first)", host);
  else if (g_hostname_is_ip_address (host))
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_HOST_UNREACHABLE, "Host unreachable: no route to %s", host);
  else
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_HOST_UNREACHABLE,
                 "Host unreachable: %s is not reachable (it did not resolve, or no route leads to it)", host);
  return FALSE;
}

static gboolean
can_reach (GNetworkMonitor *monitor, GSocketConnectable *connectable, GCancellable *cancellable, GError **error)
{
  ReachdNetworkMonitor *self = REACHD_NETWORK_MONITOR (monitor);
  g_autoptr (GNetworkMonitor) fallback = reachd_network_monitor_ref_fallback (self);
  g_autofree char *host = NULL;
  g_autoptr (GVariant) reply = NULL;
  g_autoptr (GError) call_error = NULL;

  if (fallback != NULL)
    return g_network_monitor_can_reach (fallback, connectable, cancellable, error);
  host = host_of (connectable, error);
  if (host == NULL)
    return FALSE;
  reply = g_dbus_connection_call_sync (reachd_network_monitor_get_connection (self), REACHD_BUS_NAME,
                                       REACHD_OBJECT_PATH, REACHD_INTERFACE, "CheckHost",
                                       g_variant_new ("(s)", host), G_VARIANT_TYPE ("(iu)"),
                                       reachd_network_monitor_check_host_flags (self), CHECK_HOST_TIMEOUT_MS,
                                       cancellable, &call_error);
  return answer (self, host, reply, call_error, error);
}

static void check_host_done (GObject *source, GAsyncResult *result, gpointer user_data);

/* Puts the task's CheckHost on the bus, from the task's context so that its reply comes back
 * there. Takes the task's reference. */
static gboolean
check_host_start (gpointer user_data)
{
  GTask *task = user_data;
  ReachdNetworkMonitor *self = g_task_get_source_object (task);
  Check *check = g_task_get_task_data (task);
  GMainContext *context = g_task_get_context (task);
  GMainContext *current = g_main_context_get_thread_default ();
  /* Started by can_reach_async, or by g_main_context_invoke in the task's context: push it
   * only where the running context is not already the thread-default one. */
  gboolean push = context != (current != NULL ? current : g_main_context_default ());

  if (push)
    g_main_context_push_thread_default (context);
  g_dbus_connection_call (reachd_network_monitor_get_connection (self), REACHD_BUS_NAME,
                          REACHD_OBJECT_PATH, REACHD_INTERFACE, "CheckHost",
                          g_variant_new ("(s)", check->host), G_VARIANT_TYPE ("(iu)"),
                          reachd_network_monitor_check_host_flags (self), CHECK_HOST_TIMEOUT_MS,
                          g_task_get_cancellable (task), check_host_done, task);
  if (push)
    g_main_context_pop_thread_default (context);
  return G_SOURCE_REMOVE;
}

/* A waiting task's cancellable fired (in the task's context): answer it now, if it still waits. */
static gboolean
waiting_cancelled (GCancellable *cancellable, gpointer user_data)
{
  GTask *task = user_data;
  ReachdNetworkMonitor *self = g_task_get_source_object (task);
  ReachdCheckHostQueue *queue = reachd_network_monitor_get_checks (self);
  Check *check = g_task_get_task_data (task);
  gboolean waiting;

  (void) cancellable;
  g_mutex_lock (&queue->lock);
  waiting = g_queue_remove (&queue->waiting, task);
  if (waiting)
    g_clear_pointer (&check->cancelled, g_source_unref);
  g_mutex_unlock (&queue->lock);
  if (waiting)
    {
      g_task_return_error_if_cancelled (task);
      g_object_unref (task);
    }
  return G_SOURCE_REMOVE;
}

static void
check_host_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  ReachdNetworkMonitor *self = g_task_get_source_object (task);
  ReachdCheckHostQueue *queue = reachd_network_monitor_get_checks (self);
  Check *check = g_task_get_task_data (task);
  g_autoptr (GVariant) reply = NULL;
  g_autoptr (GError) call_error = NULL;
  GError *error = NULL;
  GTask *next;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &call_error);

  /* This call's place on the bus goes to the first waiting one. */
  g_mutex_lock (&queue->lock);
  next = g_queue_pop_head (&queue->waiting);
  if (next == NULL)
    queue->in_flight--;
  else
    {
      Check *next_check = g_task_get_task_data (next);
      if (next_check->cancelled != NULL)
        g_source_destroy (next_check->cancelled);
      g_clear_pointer (&next_check->cancelled, g_source_unref);
    }
  g_mutex_unlock (&queue->lock);
  if (next != NULL)
    g_main_context_invoke (g_task_get_context (next), check_host_start, next);

  if (answer (self, check->host, reply, call_error, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/* GLib's own monitor's answer, for a task it answered while it stood in for reachd. */
static void
fallback_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GError *error = NULL;

  if (g_network_monitor_can_reach_finish (G_NETWORK_MONITOR (source), result, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
can_reach_async (GNetworkMonitor *monitor, GSocketConnectable *connectable, GCancellable *cancellable,
                 GAsyncReadyCallback callback, gpointer user_data)
{
  ReachdNetworkMonitor *self = REACHD_NETWORK_MONITOR (monitor);
  ReachdCheckHostQueue *queue = reachd_network_monitor_get_checks (self);
  g_autoptr (GTask) task = g_task_new (monitor, cancellable, callback, user_data);
  g_autoptr (GNetworkMonitor) fallback = reachd_network_monitor_ref_fallback (self);
  GError *error = NULL;
  Check *check;
  char *host;

  g_task_set_source_tag (task, can_reach_async);
  if (fallback != NULL)
    {
      g_network_monitor_can_reach_async (fallback, connectable, cancellable, fallback_done, g_steal_pointer (&task));
      return;
    }
  host = host_of (connectable, &error);
  if (host == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  check = g_new0 (Check, 1);
  check->host = host;
  g_task_set_task_data (task, check, check_free);

  g_mutex_lock (&queue->lock);
  if (queue->in_flight < CHECK_HOST_IN_FLIGHT)
    {
      queue->in_flight++;
      g_mutex_unlock (&queue->lock);
      check_host_start (g_steal_pointer (&task));
      return;
    }
  if (cancellable != NULL)
    {
      check->cancelled = g_cancellable_source_new (cancellable);
      g_task_attach_source (task, check->cancelled, G_SOURCE_FUNC (waiting_cancelled));
    }
  g_queue_push_tail (&queue->waiting, g_steal_pointer (&task));
  g_mutex_unlock (&queue->lock);
}

static gboolean
can_reach_finish (GNetworkMonitor *monitor, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, monitor), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

void
reachd_network_monitor_can_reach_iface_init (GNetworkMonitorInterface *iface)
{
  iface->can_reach = can_reach;
  iface->can_reach_async = can_reach_async;
  iface->can_reach_finish = can_reach_finish;
}
