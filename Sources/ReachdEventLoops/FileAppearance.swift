import CReachdEventLoops
import Glibc

/// Waits for a file to appear at a path (the Unix socket a bus daemon binds, at boot) at no cost
/// while nothing happens: inotify on the nearest folder of the path that exists, moved down as
/// the folders below it are made (`/run/dbus` may not exist yet either).
///
/// ```swift
/// let socket = "/run/dbus/system_bus_socket"
/// if case .appeared = await FileAppearance.wait(for: socket, replacing: FileAppearance.identity(of: socket), on: loop) {
///     // a file is there now that was not there before (a bus daemon started, or started again)
/// }
/// ```
public enum FileAppearance {
    /// Which file a path names: a file made again at the same path (a daemon's socket after a
    /// restart) differs in inode or change time.
    public struct Identity: Hashable, Sendable {
        var device: UInt64
        var inode: UInt64
        var changed: Int
        var changedNanoseconds: Int
    }

    public enum Outcome: Sendable, Equatable {
        /// A file is at the path now, and it is not the one `replacing` named.
        case appeared(Identity)
        /// The waiting task was cancelled.
        case cancelled
        /// inotify refused (the user's instance or watch limit, a folder not readable): nothing
        /// would tell of the file, so the caller decides without it.
        case cannotWatch(String)
    }

    /// The file at `path` now (symbolic links followed), nil when there is none.
    public static func identity(of path: String) -> Identity? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Identity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino),
                        changed: Int(status.st_ctim.tv_sec), changedNanoseconds: Int(status.st_ctim.tv_nsec))
    }

    /// Returns once a file is at `path` that is not `replacing` (nil: any file), at once when
    /// one is there already.
    public static func wait(for path: String, replacing: Identity?, on loop: EventLoop) async -> Outcome {
        await FileAppearanceWatch(loop: loop, path: path, replacing: replacing).wait()
    }
}

/// One wait: its inotify descriptor, watched on the loop until the file is there.
private actor FileAppearanceWatch {
    private let loop: EventLoop
    private let path: String
    private let replacing: FileAppearance.Identity?
    private var descriptor: Int32 = -1
    /// The folder watched now, and its watch.
    private var watched: (folder: String, watch: Int32)?
    private var waiter: CheckedContinuation<FileAppearance.Outcome, Never>?

    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    init(loop: EventLoop, path: String, replacing: FileAppearance.Identity?) {
        self.loop = loop
        self.path = path
        self.replacing = replacing
    }

    func wait() async -> FileAppearance.Outcome {
        if let early = arm() { return early }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled {
                    end()
                    continuation.resume(returning: .cancelled)
                } else {
                    waiter = continuation
                }
            }
        } onCancel: {
            Task { await self.finish(.cancelled) }
        }
    }

    /// Opens the descriptor and watches the nearest folder; an outcome when there is one already.
    private func arm() -> FileAppearance.Outcome? {
        do throws(SystemCallError) {
            descriptor = try systemCall("inotify_init1") { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }
            // Strong on purpose: the loop's handler keeps this wait alive until it ends.
            try loop.watch(descriptor, for: .readable) { [self] _ in
                self.assumeIsolated { $0.changed() }
            }
            try follow()
        } catch {
            end()
            return .cannotWatch("\(error)")
        }
        if let found = present() {
            end()
            return .appeared(found)
        }
        return nil
    }

    private func changed() {
        // What counts is what the folders hold now; an event is only a reason to look. In a busy
        // folder (the nearest one of the path may be /run or /tmp) most events name other files:
        // those are read and dropped, with no look at the path.
        var buffer = [UInt8](repeating: 0, count: 4096)
        var relevant = false
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            guard let watched else {
                relevant = true
                continue
            }
            switch Self.scan(buffer[..<count], watch: watched.watch, awaiting: Self.nextName(of: path, below: watched.folder)) {
            case .watchEnded:
                self.watched = nil
                relevant = true
            case .awaitedName:
                relevant = true
            case .nothing:
                break
            }
        }
        guard relevant else { return }
        do throws(SystemCallError) {
            try follow()
        } catch {
            return finish(.cannotWatch("\(error)"))
        }
        if let found = present() { finish(.appeared(found)) }
    }

    private enum Scan { case nothing, awaitedName, watchEnded }

    /// What a read of `inotify_event`s says for `watch`: it ended (`IN_IGNORED`: its folder went,
    /// or the queue overflowed), or an entry named `awaiting` appeared in it, or nothing that counts.
    private static func scan(_ events: ArraySlice<UInt8>, watch: Int32, awaiting: String) -> Scan {
        let header = MemoryLayout<inotify_event>.size
        var offset = events.startIndex
        var result = Scan.nothing
        while events.endIndex - offset >= header {
            let event = events[offset..<offset + header].withUnsafeBytes { $0.loadUnaligned(as: inotify_event.self) }
            let nameBytes = events[(offset + header)..<min(offset + header + Int(event.len), events.endIndex)]
            if event.mask & UInt32(IN_Q_OVERFLOW) != 0 { return .watchEnded }
            if event.wd == watch, event.mask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) != 0 { return .watchEnded }
            if event.wd == watch, String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self) == awaiting { result = .awaitedName }
            offset += header + Int(event.len)
        }
        return result
    }

    /// The name in `folder` that leads to `path` (`run` for /run/dbus/bus below /).
    static func nextName(of path: String, below folder: String) -> String {
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        guard path.hasPrefix(prefix) else { return "" }
        return String(path.dropFirst(prefix.count).prefix { $0 != "/" })
    }

    private func present() -> FileAppearance.Identity? {
        guard let found = FileAppearance.identity(of: path), found != replacing else { return nil }
        return found
    }

    /// Moves the watch to the deepest folder of the path that exists: a folder made between
    /// looking and watching is seen on the next round, as the watch is already on its parent.
    private func follow() throws(SystemCallError) {
        while true {
            guard let folder = Self.nearestExistingFolder(of: path) else {
                throw SystemCallError(call: "stat(a folder of \(path))", errno: EACCES)
            }
            if folder == watched?.folder { return }
            let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF) | UInt32(IN_ONLYDIR)
            let watch: Int32
            do throws(SystemCallError) {
                watch = try systemCall("inotify_add_watch(\(folder))") { inotify_add_watch(descriptor, folder, mask) }
            } catch where error.errno == ENOENT || error.errno == ENOTDIR {
                continue  // gone between looking and watching: look again
            }
            if let old = watched, old.watch != watch { inotify_rm_watch(descriptor, old.watch) }
            watched = (folder, watch)
        }
    }

    /// The longest leading folder of `path` that exists; `/` (or `.`, for a relative path) at worst.
    /// nil where a folder of it may not be looked into (EACCES): what is missing there cannot
    /// be seen to appear.
    static func nearestExistingFolder(of path: String) -> String? {
        var folder = parent(of: path)
        var status = stat()
        while folder != "/" && folder != "." {
            if stat(folder, &status) == 0 {
                if (status.st_mode & S_IFMT) == S_IFDIR { return folder }
            } else if errno != ENOENT && errno != ENOTDIR {
                return nil
            }
            folder = parent(of: folder)
        }
        return folder
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let parent = String(path[..<slash])
        return parent.isEmpty ? "/" : parent
    }

    private func finish(_ outcome: FileAppearance.Outcome) {
        end()
        waiter?.resume(returning: outcome)
        waiter = nil
    }

    private func end() {
        guard descriptor >= 0 else { return }
        loop.unwatch(descriptor)
        close(descriptor)
        descriptor = -1
        watched = nil
    }
}
