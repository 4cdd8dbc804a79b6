// The relay's socket calls (see CReachdDBusShims.h): recvmsg and sendmsg with
// SCM_RIGHTS, and dup3, none of which Swift can spell without the CMSG macros
// and _GNU_SOURCE.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "CReachdDBusShims.h"

// The kernel passes at most SCM_MAX_FD (253) descriptors in one message.
enum { MAX_FDS = 253 };

ssize_t CShims_receive(int socket, void *buffer, size_t length, int *fds, int max_fds, int *n_fds) {
    union {
        char bytes[CMSG_SPACE(sizeof(int) * MAX_FDS)];
        struct cmsghdr align;
    } control;
    struct iovec vector = { .iov_base = buffer, .iov_len = length };
    struct msghdr message = {
        .msg_iov = &vector, .msg_iovlen = 1,
        .msg_control = control.bytes, .msg_controllen = sizeof control.bytes,
    };
    *n_fds = 0;
    ssize_t got = recvmsg(socket, &message, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    if (got < 0) return got;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header != NULL; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        int count = (int)((header->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        int *passed = (int *)CMSG_DATA(header);
        for (int i = 0; i < count; i++) {
            if (*n_fds < max_fds) {
                fds[(*n_fds)++] = passed[i];
            } else {
                close(passed[i]);
            }
        }
    }
    return got;
}

ssize_t CShims_send(int socket, const void *buffer, size_t length, const int *fds, int n_fds) {
    if (n_fds > MAX_FDS) {
        errno = EINVAL;
        return -1;
    }
    union {
        char bytes[CMSG_SPACE(sizeof(int) * MAX_FDS)];
        struct cmsghdr align;
    } control;
    struct iovec vector = { .iov_base = (void *)buffer, .iov_len = length };
    struct msghdr message = { .msg_iov = &vector, .msg_iovlen = 1 };
    if (n_fds > 0) {
        memset(&control, 0, sizeof control);
        message.msg_control = control.bytes;
        message.msg_controllen = CMSG_SPACE(sizeof(int) * n_fds);
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int) * n_fds);
        memcpy(CMSG_DATA(header), fds, sizeof(int) * n_fds);
    }
    return sendmsg(socket, &message, MSG_DONTWAIT | MSG_NOSIGNAL);
}

int CShims_replace_descriptor(int source, int target) {
    return dup3(source, target, O_CLOEXEC);
}

