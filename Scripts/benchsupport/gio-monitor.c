/* gio-monitor: a minimal GLib app for Scripts/bench's GIO network-monitor rows. It asks GIO for
 * its network monitor as every GLib app does (g_network_monitor_get_default); which one it gets
 * is GIO's choice, from GIO_EXTRA_MODULES and GIO_USE_NETWORK_MONITOR.
 *
 *   gio-monitor init [--session]   one line: type=NAME init_us=N rss_gain_kib=N anon_gain_kib=N
 *                                  module_kib=N: what get_default() took, what it added to the
 *                                  resident set, to its anonymous part (heap, stacks: not library
 *                                  pages, which the page cache shares), and the resident pages of
 *                                  the module's own file
 *                                  (--session: the app is on the session bus first, as a
 *                                  GApplication is, and only then asks for the monitor)
 *   gio-monitor idle               asks for the monitor, prints "ready TYPE", then sits in its
 *                                  main loop until SIGTERM (for strace -c -f)
 */
#include <gio/gio.h>
#include <glib-unix.h>
#include <stdio.h>
#include <string.h>

/* A field of /proc/self/status in KiB (VmRSS, RssAnon, RssFile). */
static long
status_kib (const char *field)
{
  g_autofree char *status = NULL;
  g_autofree char *key = g_strconcat ("\n", field, ":", NULL);
  const char *line;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL))
    return -1;
  line = strstr (status, key);
  return line != NULL ? strtol (line + strlen (key), NULL, 10) : -1;
}

/* The resident pages of the reachd module's own file (0 when GLib's own monitor answers). */
static long
module_kib (void)
{
  g_autofree char *smaps = NULL;
  g_auto (GStrv) lines = NULL;
  gboolean module = FALSE;
  long total = 0;

  if (!g_file_get_contents ("/proc/self/smaps", &smaps, NULL, NULL))
    return -1;
  lines = g_strsplit (smaps, "\n", -1);
  for (char **line = lines; *line != NULL; line++)
    {
      if (g_ascii_isxdigit ((*line)[0]) && strchr (*line, '-') != NULL && strchr (*line, ' ') > strchr (*line, '-'))
        module = strstr (*line, "libgioreachd.so") != NULL;
      else if (module && g_str_has_prefix (*line, "Rss:"))
        total += strtol (*line + strlen ("Rss:"), NULL, 10);
    }
  return total;
}

static gboolean
quit (gpointer loop)
{
  g_main_loop_quit (loop);
  return G_SOURCE_REMOVE;
}

int
main (int argc, char **argv)
{
  GNetworkMonitor *monitor;
  gint64 started, took;
  long rss, anonymous;

  if (argc >= 2 && strcmp (argv[1], "init") == 0)
    {
      if (argc >= 3 && strcmp (argv[2], "--session") == 0)
        {
          g_autoptr (GDBusConnection) session = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, NULL);
          if (session == NULL)
            return 1;
          g_object_ref (session); /* kept, as the app's own */
        }
      /* The type system, the GIO types and this program's pages are in before the first figure. */
      g_type_ensure (G_TYPE_NETWORK_MONITOR);
      rss = status_kib ("VmRSS");
      anonymous = status_kib ("RssAnon");
      started = g_get_monotonic_time ();
      monitor = g_network_monitor_get_default ();
      took = g_get_monotonic_time () - started;
      /* Read before smaps is: reading it allocates. */
      rss = status_kib ("VmRSS") - rss;
      anonymous = status_kib ("RssAnon") - anonymous;
      printf ("type=%s init_us=%" G_GINT64_FORMAT " rss_gain_kib=%ld anon_gain_kib=%ld module_kib=%ld\n",
              G_OBJECT_TYPE_NAME (monitor), took, rss, anonymous, module_kib ());
      return 0;
    }
  if (argc >= 2 && strcmp (argv[1], "idle") == 0)
    {
      g_autoptr (GMainLoop) loop = g_main_loop_new (NULL, FALSE);
      monitor = g_network_monitor_get_default ();
      g_unix_signal_add (SIGTERM, quit, loop);
      printf ("ready %s\n", G_OBJECT_TYPE_NAME (monitor));
      fflush (stdout);
      g_main_loop_run (loop);
      return 0;
    }
  fprintf (stderr, "usage: gio-monitor init [--session] | idle\n");
  return 64;
}
