import ReachdDBus
import Glibc

/// Where a caller runs, as far as reachd's policy cares: on the host, or in a Flatpak sandbox
/// described by its `/.flatpak-info`.
///
/// Read as xdg-desktop-portal reads it (contract §6.3): the process the bus names → its root
/// (`/proc/PID/root`, opened as a directory) → `.flatpak-info` in that root. A Flatpak app's
/// bus traffic comes through xdg-dbus-proxy, which runs in the app's sandbox and so has the
/// same file. No file there: a host process.
///
/// The root of another user's process is closed to reachd (it needs ptrace access), as it is to
/// a system instance for every caller. Then the caller's cgroup decides (contract 4, §1.2), which
/// `/proc/PID/cgroup` shows to everyone: Flatpak starts each app in a systemd scope named
/// `app-flatpak-APPID-N.scope`, so a caller there is a Flatpak app whose network permission
/// cannot be proven (`flatpakUnproven`, refused as an app without network, failing closed); a
/// caller in no such scope is a host process.
enum CallerSandbox: Sendable, Equatable {
    case host
    case flatpak(FlatpakInfo)
    /// A Flatpak app (by its cgroup) whose `.flatpak-info` reachd may not read: its ID.
    case flatpakUnproven(applicationID: String)

    /// Reads the sandbox of the process behind `credentials` (`GetConnectionCredentials`'s answer).
    static func of(_ credentials: ProcessCredentials) throws(CallerIdentificationFailure) -> CallerSandbox {
        let processID = try credentials.livingProcessID()
        let root = open("/proc/\(processID)/root", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY)
        guard root >= 0 else {
            let code = errno
            // Not ours to look into: the cgroup says whether it is a Flatpak app.
            if code == EACCES || code == EPERM {
                let sandbox = try ofCgroup(processID)
                try credentials.confirmSameProcess(processID)
                return sandbox
            }
            // Failing closed, as the portal does: a root that is gone is most likely a caller
            // that has gone, and never a reason to treat it as a host app.
            throw CallerIdentificationFailure("cannot open /proc/\(processID)/root", errno: code)
        }
        defer { close(root) }
        let file = openat(root, ".flatpak-info", O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW)
        if file < 0 {
            let code = errno
            guard code == ENOENT else { throw CallerIdentificationFailure("cannot open .flatpak-info in the root of process \(processID)", errno: code) }
            try credentials.confirmSameProcess(processID)
            return .host
        }
        defer { close(file) }
        let text = try readAll(file, what: "the .flatpak-info of process \(processID)")
        try credentials.confirmSameProcess(processID)
        return .flatpak(FlatpakInfo(parsing: text))
    }

    /// The cgroup rule, for a process whose root reachd may not open.
    static func ofCgroup(_ processID: UInt32) throws(CallerIdentificationFailure) -> CallerSandbox {
        let file = open("/proc/\(processID)/cgroup", O_RDONLY | O_CLOEXEC | O_NOCTTY)
        guard file >= 0 else { throw CallerIdentificationFailure("cannot open /proc/\(processID)/cgroup", errno: errno) }
        defer { close(file) }
        let text = try readAll(file, what: "the cgroup of process \(processID)")
        return flatpakApplication(inCgroups: text).map { .flatpakUnproven(applicationID: $0) } ?? .host
    }

    /// The app ID of the `app-flatpak-APPID-N.scope` in `/proc/PID/cgroup`'s text, nil when the
    /// process is in no such scope. (An app ID has dots and may have dashes; the scope's last
    /// dash-separated word is Flatpak's instance number.)
    static func flatpakApplication(inCgroups text: String) -> String? {
        for line in text.split(separator: "\n") {
            // "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-flatpak-org.example.App-123.scope"
            for component in line.split(separator: "/") where component.hasPrefix("app-flatpak-") && component.hasSuffix(".scope") {
                let name = component.dropFirst("app-flatpak-".count).dropLast(".scope".count)
                guard let dash = name.lastIndex(of: "-"), !name[name.index(after: dash)...].isEmpty,
                      name[name.index(after: dash)...].allSatisfy(\.isNumber) else { return String(name) }
                return String(name[..<dash])
            }
        }
        return nil
    }

    /// The file's text, at most 1 MiB (a real one is well under 4 KiB).
    private static func readAll(_ file: Int32, what: String) throws(CallerIdentificationFailure) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let count = buffer.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw CallerIdentificationFailure("cannot read \(what)", errno: errno)
            }
            if count == 0 { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The process behind a bus connection, as `GetConnectionCredentials` describes it.
struct ProcessCredentials: Sendable {
    var processID: UInt32?
    /// `UnixUserID`: the caller's user, by which a system instance shares its limits out.
    var userID: UInt32?
    /// A pidfd, which dbus-daemon 1.15.8 and later add: it names the process itself, so a PID
    /// reused after the caller exited cannot be mistaken for it.
    var processFD: UnixFileDescriptor?

    /// From the reply's `a{sv}`.
    init(_ reply: DBusValue?) {
        guard case .dictionary(_, _, let entries)? = reply else { return }
        for entry in entries {
            switch (entry.key.stringValue, entry.value.unwrappingVariant) {
            case ("ProcessID"?, .uint32(let id)): processID = id
            case ("UnixUserID"?, .uint32(let id)): userID = id
            case ("ProcessFD"?, .unixFD(let descriptor)): processFD = descriptor
            default: break
            }
        }
    }

    /// The PID to look at: the pidfd's, when there is one.
    func livingProcessID() throws(CallerIdentificationFailure) -> UInt32 {
        if let processFD {
            let id = Self.pid(of: processFD)
            // The kernel shows 0 for a process outside the reader's PID namespace.
            if id == 0 { throw .notVisible }
            guard let id, id > 0 else { throw CallerIdentificationFailure("the caller's process has exited") }
            return UInt32(id)
        }
        guard let processID else { throw CallerIdentificationFailure("the bus did not say which process the caller is") }
        // The bus's kernel gives 0 for a peer in a PID namespace it cannot see into (SO_PEERCRED):
        // /proc/0 is no process, and no one can tell where the caller runs.
        guard processID != 0 else { throw .notVisible }
        return processID
    }

    /// With a pidfd: the PID still names the same, living process, so what was read under
    /// `/proc/PID` was the caller's.
    func confirmSameProcess(_ processID: UInt32) throws(CallerIdentificationFailure) {
        guard let processFD else { return }
        guard Self.pid(of: processFD) == Int(processID) else { throw CallerIdentificationFailure("the caller's process exited while reachd looked at it") }
    }

    /// The `Pid:` line of the pidfd's fdinfo: -1 once the process has exited.
    private static func pid(of descriptor: UnixFileDescriptor) -> Int? {
        guard let file = fopen("/proc/self/fdinfo/\(descriptor.rawValue)", "re") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("Pid:") {
                return Int(String(text.dropFirst(4).filter { !$0.isWhitespace }))
            }
        }
        return nil
    }
}

/// Why reachd could not tell where a caller runs.
struct CallerIdentificationFailure: Error, CustomStringConvertible {
    let description: String
    /// The caller's process is in a PID namespace that reachd's (and the bus's) cannot see
    /// into: not a passing failure, and not one a later call can mend.
    let isNotVisible: Bool

    init(_ what: String, errno code: Int32? = nil) {
        description = code.map { "\(what): \(String(cString: strerror($0)))" } ?? what
        isNotVisible = false
    }

    private init(notVisible description: String) {
        self.description = description
        isNotVisible = true
    }

    static let notVisible = CallerIdentificationFailure(
        notVisible: "the caller's process is not visible from reachd's PID namespace (the bus gives its process ID as 0)")
}
