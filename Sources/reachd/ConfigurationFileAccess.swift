import Glibc
import ReachdService

/// Opening reachd.conf safely: what reachd reads decides which URL its own check fetches and
/// whether NetworkManager's word is cross-checked, so a file someone else could write, or a
/// special file that blocks (a FIFO) or has side effects on open (a device), is refused before a
/// byte of it is read (issue 40).
///
/// Every instance: the file is opened without blocking (`O_NONBLOCK`), without following a
/// symbolic link in its last component (`O_NOFOLLOW`), and must be a regular file (`fstat` of
/// the descriptor opened, so nothing can be swapped in between). The system instance
/// (`--system`, with its usual file or `--config`) also needs the file and every folder up to `/`
/// to be root's and not writable by group or others, as sudo asks of sudoers: otherwise whoever
/// could write one of them could change what the service for every user does.
enum ConfigurationFileAccess {
    enum Outcome: Equatable {
        /// No such file (no error where the file is optional).
        case absent
        case contents([UInt8])
        /// Why the file is not read, each a sentence that says how to fix it.
        case refused([String])
    }

    /// The file at `path`, read as `system` (the system instance) or a session's reachd may read it.
    static func read(_ path: String, system: Bool) -> Outcome {
        // A special file is refused before it is opened: opening a device may do something.
        var linkStatus = stat()
        if lstat(path, &linkStatus) == 0 {
            let kind = linkStatus.st_mode & S_IFMT
            if kind == S_IFLNK { return .refused([symbolicLink(path)]) }
            if kind != S_IFREG { return .refused([notRegular(path, kind)]) }
        }
        var problems: [String] = []
        if system { problems += folderProblems(of: path) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW)
        guard descriptor >= 0 else {
            let code = errno
            // Nothing read, nothing to trust: the folders matter once there is a file.
            if code == ENOENT || code == ENOTDIR { return .absent }
            if code == ELOOP { return .refused(problems + [symbolicLink(path)]) }
            if code == ENXIO { return .refused(problems + [notRegular(path, S_IFSOCK)]) }
            return .refused(problems + ["cannot open it: \(String(cString: strerror(code)))"])
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .refused(problems + ["cannot read it: \(String(cString: strerror(errno)))"]) }
        guard status.st_mode & S_IFMT == S_IFREG else { return .refused(problems + [notRegular(path, status.st_mode & S_IFMT)]) }
        if system { problems = fileProblems(path, status) + problems }
        guard problems.isEmpty else { return .refused(problems) }
        return readAll(descriptor)
    }

    // MARK: Ownership (the system instance)

    /// The file's own owner and mode.
    private static func fileProblems(_ path: String, _ status: stat) -> [String] {
        var problems: [String] = []
        if status.st_uid != 0 {
            problems.append("it is owned by \(userName(status.st_uid)), not root: the system instance reads only a file "
                            + "root owns, as sudo reads sudoers; as root: chown root:root \(path)")
        }
        if status.st_mode & 0o022 != 0 {
            problems.append("it can be written by \(writers(status.st_mode)) (mode \(octal(status.st_mode))): the system instance "
                            + "reads only a file only root can write; as root: chmod go-w \(path)")
        }
        return problems
    }

    /// Each folder from the file's up to `/`, resolved (a link in the middle is followed to where
    /// it leads, and that is what is checked): root's, and not writable by group or others, or
    /// someone else could put another file in its place.
    private static func folderProblems(of path: String) -> [String] {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        guard let resolved = realpath(folder, nil) else { return [] }  // the open says why
        var current = String(cString: resolved)
        free(resolved)
        var problems: [String] = []
        while true {
            var status = stat()
            if stat(current, &status) == 0 {
                let writable = status.st_mode & 0o022 != 0
                if status.st_uid != 0 || writable {
                    var what: [String] = []
                    if status.st_uid != 0 { what.append("owned by \(userName(status.st_uid)), not root") }
                    if writable { what.append("writable by \(writers(status.st_mode)) (mode \(octal(status.st_mode)))") }
                    var fix: [String] = []
                    if status.st_uid != 0 { fix.append("chown root:root \(current)") }
                    if writable { fix.append("chmod go-w \(current)") }
                    problems.append("its folder \(current) is \(what.joined(separator: " and ")), so someone other than root "
                                    + "could replace the file: keep it where only root can write every folder up to / (as "
                                    + "\(ConfigurationFileAccess.systemFolder)), or as root: \(fix.joined(separator: "; "))")
                }
            }
            guard current != "/" else { break }
            let parent = current[..<current.lastIndex(of: "/")!]
            current = parent.isEmpty ? "/" : String(parent)
        }
        return problems
    }

    /// The folder of the system instance's usual file.
    static let systemFolder = "/etc/reachd"

    private static func writers(_ mode: mode_t) -> String {
        switch (mode & 0o020 != 0, mode & 0o002 != 0) {
        case (true, true): "its group and others"
        case (true, false): "its group"
        default: "others"
        }
    }

    private static func octal(_ mode: mode_t) -> String {
        let digits = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private static func userName(_ uid: uid_t) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "uid \(uid)" }
        return "\(String(cString: name)) (uid \(uid))"
    }

    // MARK: Kinds of file

    private static func symbolicLink(_ path: String) -> String {
        var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink(path, &target, Int(PATH_MAX))
        let pointee = length > 0
            ? String(decoding: target.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
        return "it is a symbolic link\(pointee.map { " to \($0)" } ?? ""), which reachd does not follow to its configuration: "
            + "give --config the file itself, or put the file in the link's place"
    }

    private static func notRegular(_ path: String, _ kind: mode_t) -> String {
        let name = switch kind {
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFDIR: "a folder"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
        return "it is \(name), not a regular file: reachd reads its configuration only from a regular file"
    }

    // MARK: Reading

    /// At most one byte over `ConfigurationFile.maximumSize` (enough for the parser to refuse it).
    private static func readAll(_ descriptor: Int32) -> Outcome {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count <= ConfigurationFile.maximumSize {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return .refused(["cannot read it: \(String(cString: strerror(errno)))"]) }
            if count == 0 { break }
            bytes += buffer[..<count]
        }
        return .contents(bytes)
    }
}
