import CReachdMemory

/// Gives memory the process has freed back to the system.
///
/// After a flood of lookups (issue 40: 32,768 `CheckHost` calls left reachd at ~220 MB for good)
/// the callers' messages and tasks are freed, but glibc keeps the pages in its arenas for reuse;
/// `malloc_trim` returns them, so a flood does not leave the daemon large after it.
enum MemoryRelease {
    @Sendable static func giveBack() {
        _ = CMemory_trim(0)
    }
}
