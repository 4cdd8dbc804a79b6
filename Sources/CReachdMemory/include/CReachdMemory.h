// glibc's malloc tuning, which Swift's Glibc module does not export (<malloc.h>), and the release
// of code pages start-up touched.
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

// Every loaded object's read-only segments (code, read-only data; never a writable or RELRO one)
// unmapped from this process with MADV_DONTNEED: what start-up ran stops counting in VmRSS, and
// what runs later maps back, from the page cache, as it is touched. Returns the bytes released,
// or -1 where a tracer is attached and nothing was (a debugger's breakpoints live in private
// copies of code pages).
long long CMemory_release_read_only_pages(void);

#endif
