/* The GIO module: libgioreachd.so in giomoduledir (or a GIO_EXTRA_MODULES folder). GIO reads
 * g_io_module_query through `gio-querymodules`, so it loads the module only when an app asks
 * for its network monitor, then calls g_io_module_load. These three functions are the only
 * symbols the module exports (built with -fvisibility=hidden). */
#include "reachd-network-monitor.h"

/* GIO's object for this file, kept in use: the module is resident, as dconf's and gvfs's are.
 * The monitor's type is registered once and stays, and a D-Bus reply or source that outlives a
 * monitor never finds the code gone. */
static GIOModule *resident;

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
  if (resident == NULL)
    {
      resident = module;
      g_type_module_use (G_TYPE_MODULE (module));
    }
  g_io_extension_point_implement (G_NETWORK_MONITOR_EXTENSION_POINT_NAME, REACHD_TYPE_NETWORK_MONITOR,
                                  REACHD_NETWORK_MONITOR_NAME, REACHD_NETWORK_MONITOR_PRIORITY);
}

G_MODULE_EXPORT void
g_io_module_unload (GIOModule *module)
{
  (void) module; /* resident: never unloaded */
}

G_MODULE_EXPORT char **
g_io_module_query (void)
{
  char *extension_points[] = { (char *) G_NETWORK_MONITOR_EXTENSION_POINT_NAME, NULL };
  return g_strdupv (extension_points);
}
