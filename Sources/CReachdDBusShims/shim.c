// Pins for the constants Swift mirrors by value (ReachdDBus/RequestName.swift):
// the bus daemon's RequestName/ReleaseName flags and replies travel as plain
// UInt32 in method calls, so a drift here would be a silent protocol bug.
#include "CReachdDBusShims.h"

_Static_assert(DBUS_NAME_FLAG_ALLOW_REPLACEMENT == 0x1, "RequestNameFlags.allowReplacement");
_Static_assert(DBUS_NAME_FLAG_REPLACE_EXISTING == 0x2, "RequestNameFlags.replaceExisting");
_Static_assert(DBUS_NAME_FLAG_DO_NOT_QUEUE == 0x4, "RequestNameFlags.doNotQueue");
_Static_assert(DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER == 1, "RequestNameReply.primaryOwner");
_Static_assert(DBUS_REQUEST_NAME_REPLY_IN_QUEUE == 2, "RequestNameReply.inQueue");
_Static_assert(DBUS_REQUEST_NAME_REPLY_EXISTS == 3, "RequestNameReply.exists");
_Static_assert(DBUS_REQUEST_NAME_REPLY_ALREADY_OWNER == 4, "RequestNameReply.alreadyOwner");
_Static_assert(DBUS_RELEASE_NAME_REPLY_RELEASED == 1, "ReleaseNameReply.released");
_Static_assert(DBUS_RELEASE_NAME_REPLY_NON_EXISTENT == 2, "ReleaseNameReply.nonExistent");
_Static_assert(DBUS_RELEASE_NAME_REPLY_NOT_OWNER == 3, "ReleaseNameReply.notOwner");
