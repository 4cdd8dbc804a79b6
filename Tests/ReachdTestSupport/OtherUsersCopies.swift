import Foundation
import Glibc
import Synchronization

/// World-readable copies of the checkout's files that the tests run as another user (reachd as
/// user `reachd`, reachctl, `Scripts/harness/monitor-holder` and the GLib app as `nobody`).
///
/// A clone root can use may sit in a folder only root can enter (`mktemp -d` makes it 0700, as
/// root's home is on Debian): a program or script of the checkout run with `setpriv` as another
/// user could not be opened there (`Permission denied`). So such files run from a copy in one
/// folder of this process under /tmp, mode 0755, made on first use and removed when the process
/// exits. Paths outside the checkout (system tools) are used as they are.
public enum OtherUsersCopies {
    /// The folder of copies once made, and the copies by original path.
    private static let state = Mutex<(folder: String?, copies: [String: String])>((nil, [:]))

    /// A path to `path` that every user can read (and run, if it is a program): `path` itself
    /// outside the checkout, otherwise a copy (a folder copied whole) at the same relative place
    /// in this process's folder of copies.
    public static func path(for path: String) throws -> String {
        let repository = SystemInstance.repository.standardizedFileURL.path
        let original = URL(fileURLWithPath: path).standardizedFileURL.path
        guard original.hasPrefix(repository + "/") else { return path }
        return try state.withLock { state in
            if let copy = state.copies[original] { return copy }
            let folder = try state.folder ?? makeFolder()
            state.folder = folder
            let copy = folder + original.dropFirst(repository.count)
            try FileManager.default.createDirectory(atPath: (copy as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            try? FileManager.default.removeItem(atPath: copy)
            // By cp, not by this process: a file this process held open for writing would be
            // inherited by the children other tests spawn meanwhile, and running the copy would
            // fail with "Text file busy" (ETXTBSY) while any of them kept it.
            let cp = try ChildProcess("/bin/cp", ["-R", "--preserve=mode", original, copy])
            defer { cp.removeOutput() }
            guard cp.waitBlocking() == 0 else { throw TestFailure("cp \(original) \(copy): \(cp.standardError)") }
            try openToEveryone(copy)
            state.copies[original] = copy
            return copy
        }
    }

    /// `mkdtemp` under /tmp, mode 0755, removed at exit.
    private static func makeFolder() throws -> String {
        var template = Array("/tmp/reachd-other-users-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw TestFailure("mkdtemp for the other users' copies: \(String(cString: strerror(errno)))")
        }
        let folder = String(cString: made)
        guard chmod(folder, 0o755) == 0 else { throw TestFailure("chmod \(folder): \(String(cString: strerror(errno)))") }
        atexit {
            if let folder = OtherUsersCopies.state.withLock({ $0.folder }) {
                try? FileManager.default.removeItem(atPath: folder)
            }
        }
        return folder
    }

    /// Adds read for everyone to `path` and everything under it, and search (x) to folders and to
    /// files someone may already run.
    private static func openToEveryone(_ path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return }
        var status = stat()
        guard lstat(path, &status) == 0 else { throw TestFailure("stat \(path): \(String(cString: strerror(errno)))") }
        var mode = status.st_mode & 0o7777 | 0o444
        if isDirectory.boolValue || status.st_mode & 0o111 != 0 { mode |= 0o111 }
        guard chmod(path, mode) == 0 else { throw TestFailure("chmod \(path): \(String(cString: strerror(errno)))") }
        if isDirectory.boolValue {
            for entry in try FileManager.default.contentsOfDirectory(atPath: path) {
                try openToEveryone("\(path)/\(entry)")
            }
        }
    }
}
