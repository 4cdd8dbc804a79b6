import ArgumentParser
import Reachability

/// reachctl's exit statuses: part of its interface, listed in every `--help`.
enum ExitStatus: Int32 {
    /// Done; for `wait`, the path is reachable.
    case success = 0
    /// `wait`: not reachable before the timeout.
    case timedOut = 1
    /// reachd cannot be reached: no session bus, or not running and cannot be activated.
    case serviceUnavailable = 3
    /// reachd refused the request: invalid host, too many monitors, not supported by this reachd,
    /// or not allowed (a sandboxed app without network access).
    case refused = 4
    /// `wait --level online` where no connectivity check runs: it can never hold here.
    case cannotEvaluate = 5

    static let help = """
        EXIT STATUS
          0   success (for wait: reachable)
          1   wait: not reachable before the timeout
          3   reachd unavailable (no session bus; not running, not activatable)
          4   reachd refused (invalid host, monitor limit, not supported, not allowed)
          5   wait: the condition can never hold here (online without a connectivity check)
          64  usage error
        """

    /// The exit for a failed call, after saying why on standard error.
    static func failure(_ error: ReachabilityError) -> ExitCode {
        Output.error("\(error.message) (\(error.name))")
        return ExitCode((error.isServiceUnavailable ? serviceUnavailable : refused).rawValue)
    }
}
