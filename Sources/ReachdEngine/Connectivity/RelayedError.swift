import ReachdDBus

/// An error another daemon answered reachd with, as reachd passes it on to its own caller:
/// summarised in one sentence that names the daemon, what it did and its error's name, never
/// its message word for word. polkit's refusals, which NetworkManager relays, carry the pids
/// and command lines of reachd and of the daemon itself, which are no business of the caller's
/// (issue 40, item 5).
///
/// ```swift
/// RelayedError(daemon: "NetworkManager", action: "the check", error: refusal).dbusError.message
/// // "NetworkManager refused the check: not authorized (org.freedesktop.NetworkManager.PermissionDenied)"
/// ```
struct RelayedError: Sendable, Hashable {
    let daemon: String
    let action: String
    let error: DBusError

    /// What went wrong, judged by the error's name alone.
    enum Kind: Sendable, Hashable {
        case notAuthorized, noAnswer, gone, noSuchMethod, failed
    }

    var kind: Kind {
        let name = error.name.rawValue
        let last = name.split(separator: ".").last.map(String.init) ?? name
        switch last {
        case "PermissionDenied", "AccessDenied", "NotAuthorized", "InteractiveAuthorizationRequired", "AuthFailed":
            return .notAuthorized
        case "NoReply", "Timeout", "TimedOut":
            return .noAnswer
        case "ServiceUnknown", "NameHasNoOwner", "Disconnected", "NoServer":
            return .gone
        case "UnknownMethod", "UnknownInterface", "UnknownObject":
            return .noSuchMethod
        default:
            return .failed
        }
    }

    /// The error reachd answers its caller with: a standard name for the kind, the summary as
    /// its sentence.
    var dbusError: DBusError {
        let cause = "(\(error.name.rawValue))"
        switch kind {
        case .notAuthorized:
            return DBusError(name: "org.freedesktop.DBus.Error.AccessDenied",
                             message: "\(daemon) refused \(action): not authorized \(cause)")
        case .noAnswer:
            return .noReply("\(daemon) did not answer \(action) in time \(cause)")
        case .gone:
            return .failed("\(daemon) went away during \(action) \(cause)")
        case .noSuchMethod:
            return .notSupported("\(daemon) cannot run \(action) here \(cause)")
        case .failed:
            return .failed("\(daemon) failed \(action) \(cause)")
        }
    }
}
