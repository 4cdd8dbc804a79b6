import Foundation
import Glibc

/// Writes a script that another process will execute (a bus's activation wrapper), so that no process
/// holds it open for writing when it runs.
///
/// Foundation's `write(toFile:atomically:)` opens its file without close-on-exec: a child that any
/// other test of the process spawns meanwhile (a bus, a daemon, a tool) inherits the descriptor for
/// its whole life, and every exec of the script fails with ETXTBSY ("Text file busy"; seen once the
/// GIO module's tests ran side by side, issue 46). Here the descriptor is close-on-exec, so a child
/// holds it only between its fork and its exec, and the script is renamed into place once closed.
public func writeExecutableScript(_ text: String, to path: String) throws {
    try writeExecutable(Array(text.utf8), to: path)
}

/// A copy of the program at `source` (a renamed sleep(1)) at `path`, written as
/// `writeExecutableScript` writes, for the same reason: FileManager's copy keeps a descriptor
/// open for writing that a child of another test may inherit.
public func copyExecutable(_ source: String, to path: String) throws {
    guard let contents = FileManager.default.contents(atPath: source) else { throw TestFailure("cannot read \(source)") }
    try writeExecutable(Array(contents), to: path)
}

private func writeExecutable(_ contents: [UInt8], to path: String) throws {
    let partial = path + ".partial"
    let descriptor = open(partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o700)
    guard descriptor >= 0 else { throw TestFailure("open \(partial): \(String(cString: strerror(errno)))") }
    var bytes = contents[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        if written < 0, errno == EINTR { continue }
        guard written > 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw TestFailure("write \(partial): \(reason)")
        }
        bytes = bytes.dropFirst(written)
    }
    guard close(descriptor) == 0, chmod(partial, 0o755) == 0, rename(partial, path) == 0 else {
        throw TestFailure("placing \(path): \(String(cString: strerror(errno)))")
    }
}
