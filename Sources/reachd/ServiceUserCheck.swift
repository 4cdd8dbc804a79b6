import Glibc

/// `reachd --check-config --system` run by root checks the file as the system instance reads
/// it: as user `reachd`, which may not read what root can (a file left mode 0600 root). The
/// check runs again as that user, through `setpriv` (util-linux), and its verdict is the answer.
enum ServiceUserCheck {
    /// The user the system instance runs as (dbus/system/reachd.sysusers.conf, the unit's `User=`).
    static let user = "reachd"
    static let setpriv = "/usr/bin/setpriv"

    /// What to do for a check by `euid` of the system instance's file.
    enum Plan: Equatable {
        /// Not root, or already the service user: check here.
        case checkHere
        /// Root, and the user exists: check again as it.
        case rerun(uid: uid_t, gid: gid_t)
        /// Root, and there is no such user (or no setpriv): check here, and say why that differs.
        case checkHereSaying(String)
    }

    static func plan(euid: uid_t) -> Plan {
        let entry = getpwnam(user)
        guard euid == 0 else {
            // Another user may read less, or more, than the instance's own.
            guard let entry, entry.pointee.pw_uid != euid else { return .checkHere }
            return .checkHereSaying("checking as this user, not as user \(user), which the system instance runs as: "
                + "run it as root to check as \(user)")
        }
        guard let entry else {
            return .checkHereSaying("user \(user) does not exist, so the system instance could not run (the Debian package and "
                + "Scripts/install make it from its sysusers.d entry); checked as root, who may read more than \(user) would")
        }
        guard access(setpriv, X_OK) == 0 else {
            return .checkHereSaying("cannot check as user \(user): no \(setpriv) (util-linux); checked as root, who may read more than \(user) would")
        }
        return .rerun(uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid)
    }

    /// Runs this reachd with `arguments` as `uid`/`gid` (and the user's groups), its output
    /// passed through; returns its exit status, nil when it could not run as that user (this
    /// executable lies where the user cannot read it: a build in a private folder).
    static func rerun(uid: uid_t, gid: gid_t, arguments: [String]) -> Int32? {
        // This executable's path: /proc/self/exe would name setpriv once it runs.
        var path = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard readlink("/proc/self/exe", &path, Int(PATH_MAX)) > 0 else {
            printError("reachd: cannot find its own executable to check as user \(user): \(String(cString: strerror(errno)))")
            return nil
        }
        let executable = String(decoding: path.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let argv = [setpriv, "--reuid=\(uid)", "--regid=\(gid)", "--init-groups", executable] + arguments
        var cStrings = argv.map { strdup($0) }
        cStrings.append(nil)
        defer { cStrings.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, setpriv, nil, nil, cStrings, environ)
        guard spawned == 0 else {
            printError("reachd: cannot run \(setpriv) to check as user \(user): \(String(cString: strerror(spawned)))")
            return nil
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS, which are macros.
        let exitStatus = status & 0x7f == 0 ? (status >> 8) & 0xff : 1
        // setpriv's own "failed to execute" (126, 127): reachd never ran as the user.
        if exitStatus == 126 || exitStatus == 127 {
            printError("reachd: could not run \(executable) as user \(user) (setpriv says why above)")
            return nil
        }
        return exitStatus
    }
}
