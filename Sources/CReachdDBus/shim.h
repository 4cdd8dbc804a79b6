// Umbrella header: libdbus-1 as installed by Debian's libdbus-1-dev.
#include <dbus/dbus.h>
