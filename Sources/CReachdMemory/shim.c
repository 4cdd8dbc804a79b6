// Header-only target: see include/CReachdMemory.h.
