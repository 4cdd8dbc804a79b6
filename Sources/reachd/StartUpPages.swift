import CReachdMemory
import Logging

/// Start-up's code pages, given back once reachd serves (issue 45: idle VmRSS ≤ 6 MiB).
///
/// Start-up runs code an idle reachd never runs again: reading the configuration, connecting,
/// declaring its objects, the first snapshot of every source. Each page of code it touched stays
/// mapped, and the kernel maps the pages around each one too (fault-around, 64 KiB), so an idle
/// reachd counted about 4 MiB of its own code and 1 MiB of libc's in VmRSS. Once the name is
/// owned, every loaded object's read-only segments are unmapped from reachd (MADV_DONTNEED): the
/// pages stay in the page cache, shared and clean, and what reachd runs afterwards maps back from
/// there as it is touched (a minor fault per 64 KiB). Writable and RELRO segments are never
/// touched, nor anything while a debugger or tracer is attached. It is part of start-up: no timer,
/// and an idle reachd still makes no system call.
enum StartUpPages {
    static func giveBack(logger: Logger) {
        let bytes = CMemory_release_read_only_pages()
        if bytes < 0 {
            logger.debug("kept start-up's code pages: a debugger or tracer is attached, whose breakpoints they may hold")
        } else {
            logger.debug("gave back start-up's code pages: \(bytes / 1024) KiB of read-only mappings unmapped")
        }
    }
}
