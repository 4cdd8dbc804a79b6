// glibc's malloc tuning, which Swift's Glibc module does not export (<malloc.h>).
#ifndef REACHD_CMEMORY_H
#define REACHD_CMEMORY_H

#include <malloc.h>
#include <stddef.h>

// mallopt(M_MMAP_THRESHOLD, bytes): allocations of at least `bytes` get a
// mapping of their own, returned to the system when freed. Setting it also
// turns off glibc's dynamic raising of the threshold.
static inline int CMemory_set_mmap_threshold(size_t bytes) { return mallopt(M_MMAP_THRESHOLD, (int)bytes); }

// malloc_trim(pad): gives the free memory at the top of the heap and whole free pages inside every
// arena back to the system, keeping `pad` bytes at the top.
static inline int CMemory_trim(size_t pad) { return malloc_trim(pad); }

#endif
