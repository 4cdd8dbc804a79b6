#!/usr/bin/python3
"""Another user's process as the ReachdGioModuleTests see one: a connection to the bus at ADDRESS
that does not own reachd's name, sending signals unicast to the app's connection DESTINATION, as
anyone may (a unicast signal skips the bus's match rules, sender= included; the bus only stamps
the true sender). Prints its own unique name, then sends, in order:

  1. reachd's PropertiesChanged, saying the network is gone (Level none, Connectivity none);
  2. the bus's NameOwnerChanged, saying this connection now owns reachd's name;
  3. the PropertiesChanged of 1 again, now "from the owner" if 2 were believed;
  4. reachd's ReachabilityChanged, saying NotReachable.

  spoof.py ADDRESS DESTINATION REAL_OWNER
"""
import sys

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

NAME = "io.reachd.Reachability1"
PATH = "/io/reachd/Reachability1"


def main(address, destination, real_owner):
    flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION
    connection = Gio.DBusConnection.new_for_address_sync(address, flags, None, None)
    me = connection.get_unique_name()
    print(me, flush=True)
    gone = GLib.Variant("(sa{sv}as)", (NAME, {"Level": GLib.Variant("s", "none"),
                                               "Connectivity": GLib.Variant("s", "none")}, []))
    connection.emit_signal(destination, PATH, "org.freedesktop.DBus.Properties", "PropertiesChanged", gone)
    connection.emit_signal(destination, "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameOwnerChanged",
                           GLib.Variant("(sss)", (NAME, real_owner, me)))
    connection.emit_signal(destination, PATH, "org.freedesktop.DBus.Properties", "PropertiesChanged", gone)
    connection.emit_signal(destination, PATH, NAME, "ReachabilityChanged", GLib.Variant("(iu)", (0, 0)))
    connection.flush_sync(None)
    connection.close_sync(None)


if __name__ == "__main__":
    main(*sys.argv[1:4])
