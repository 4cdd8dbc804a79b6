// The few libdbus macros Swift cannot import, as named constants.
//
// dbus-protocol.h spells the type codes as `((int) 'y')`, which the Swift
// importer drops; these enums carry the same values under prefixed names.
#ifndef REACHD_CSHIMS_H
#define REACHD_CSHIMS_H

#include <dbus/dbus.h>

enum {
    CShims_TYPE_INVALID = DBUS_TYPE_INVALID,
    CShims_TYPE_BYTE = DBUS_TYPE_BYTE,
    CShims_TYPE_BOOLEAN = DBUS_TYPE_BOOLEAN,
    CShims_TYPE_INT16 = DBUS_TYPE_INT16,
    CShims_TYPE_UINT16 = DBUS_TYPE_UINT16,
    CShims_TYPE_INT32 = DBUS_TYPE_INT32,
    CShims_TYPE_UINT32 = DBUS_TYPE_UINT32,
    CShims_TYPE_INT64 = DBUS_TYPE_INT64,
    CShims_TYPE_UINT64 = DBUS_TYPE_UINT64,
    CShims_TYPE_DOUBLE = DBUS_TYPE_DOUBLE,
    CShims_TYPE_STRING = DBUS_TYPE_STRING,
    CShims_TYPE_OBJECT_PATH = DBUS_TYPE_OBJECT_PATH,
    CShims_TYPE_SIGNATURE = DBUS_TYPE_SIGNATURE,
    CShims_TYPE_UNIX_FD = DBUS_TYPE_UNIX_FD,
    CShims_TYPE_ARRAY = DBUS_TYPE_ARRAY,
    CShims_TYPE_VARIANT = DBUS_TYPE_VARIANT,
    CShims_TYPE_STRUCT = DBUS_TYPE_STRUCT,
    CShims_TYPE_DICT_ENTRY = DBUS_TYPE_DICT_ENTRY,
};

#endif
