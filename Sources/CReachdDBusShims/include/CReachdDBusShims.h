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

#include <stddef.h>
#include <sys/types.h>

// The socket calls of the bus relay (ReachdDBus/Relay/BusRelay.swift), which
// Swift cannot spell: control messages are macros (CMSG_*).

/// recvmsg without blocking; descriptors passed with the bytes land in `fds`
/// (close-on-exec), at most `max_fds`, their count in `*n_fds`. Returns the
/// bytes read, 0 at the end, or -1 with errno.
ssize_t CShims_receive(int socket, void *buffer, size_t length, int *fds, int max_fds, int *n_fds);

/// sendmsg without blocking and without SIGPIPE, passing `n_fds` descriptors
/// with the bytes. Returns the bytes written or -1 with errno.
ssize_t CShims_send(int socket, const void *buffer, size_t length, const int *fds, int n_fds);

/// Makes `target` name what `source` names (dup3, close-on-exec).
int CShims_replace_descriptor(int source, int target);

#endif
