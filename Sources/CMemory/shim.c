// Header-only target: see include/CMemory.h.
