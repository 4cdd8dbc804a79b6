// See include/CReachdMemory.h.
#define _GNU_SOURCE
#include "CReachdMemory.h"

#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <unistd.h>

// One loaded object's read-only segments (code, read-only data), unmapped from this process.
// Writable segments, the RELRO one among them (written by the loader's relocations, then made
// read-only), are never touched: their pages are this process's own data.
static int release_object(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    size_t *released = data;
    if (info->dlpi_name != NULL && strncmp(info->dlpi_name, "linux-vdso", 10) == 0) return 0;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    for (ElfW(Half) index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_LOAD || (header->p_flags & PF_W) != 0) continue;
        uintptr_t start = (info->dlpi_addr + header->p_vaddr) & ~(page - 1);
        uintptr_t end = (info->dlpi_addr + header->p_vaddr + header->p_memsz + page - 1) & ~(page - 1);
        if (madvise((void *)start, end - start, MADV_DONTNEED) == 0) *released += end - start;
    }
    return 0;
}

// A debugger's (or Scripts/layout/order's tracer's) breakpoints are written into private copies
// of code pages; unmapping those would drop them. Traced, nothing is released.
static int is_traced(void) {
    FILE *status = fopen("/proc/self/status", "re");
    if (status == NULL) return 1;
    char line[256];
    int traced = 1;
    while (fgets(line, sizeof line, status) != NULL) {
        if (strncmp(line, "TracerPid:", 10) == 0) {
            traced = atoi(line + 10) != 0;
            break;
        }
    }
    fclose(status);
    return traced;
}

long long CMemory_release_read_only_pages(void) {
    if (is_traced()) return -1;
    size_t released = 0;
    dl_iterate_phdr(release_object, &released);
    return (long long)released;
}
