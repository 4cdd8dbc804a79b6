import ReachdKit

/// reachctl's exit statuses: part of its interface. `reachctl --help` lists them all; each
/// command's help lists the ones that command can give, in its own words.
enum ExitStatus: Int32 {
    /// Done; for `host` and `wait`, reachable (the condition holds).
    case success = 0
    /// `host`: not reachable now; `wait`: not reachable before the timeout (or at once with
    /// `--timeout 0` or `-x`).
    case notReachable = 1
    /// The provider chosen with `--service` or `REACHD_SERVICE` cannot answer (no such bus, reachd
    /// not running there and not activatable, or in another network namespace), or the engine could
    /// not run in-process. Choosing by itself reachctl answers in-process instead.
    case serviceUnavailable = 3
    /// reachd refused the request: invalid host, too many monitors, not supported by this reachd,
    /// or not allowed (a sandboxed app without network access).
    case refused = 4
    /// `wait --level online` where no connectivity check runs or can come: it can never hold here.
    case cannotEvaluate = 5
    /// A bad command line (CommandGrammar's usage errors and the commands' own checks).
    case usage = 64
    /// The answer could not be written to standard output (a full disk, a closed pipe): EX_IOERR,
    /// as 64 is EX_USAGE.
    case outputFailed = 74

    /// The whole table, for `reachctl --help`.
    static let help = table([
        (.success, "success; host, wait: reachable"),
        (.notReachable, "host: not reachable; wait: not reachable before the timeout"),
        (.serviceUnavailable, "the provider --service or REACHD_SERVICE chose cannot answer"),
        (.refused, "reachd refused (invalid host, monitor limit, not supported, not allowed)"),
        (.cannotEvaluate, "wait: can never hold here (online, and no connectivity check can run)"),
        (.usage, "usage error (unknown command or option, value out of range)"),
        (.outputFailed, "could not write the answer to standard output (disk full, reader gone)"),
    ])

    /// `status` and `path`: one read of the main object.
    static let readHelp = table([
        (.success, "printed"),
        (.serviceUnavailable, "the provider --service or REACHD_SERVICE chose cannot answer"),
        (.refused, "reachd refused (not allowed: a sandboxed app without network access)"),
        (.usage, "usage error"),
        (.outputFailed, "could not write to standard output"),
    ])

    /// `watch` ends when interrupted; while reachd cannot be reached it waits, not exits.
    static let watchHelp = table([
        (.refused, "reachd refused (not allowed: a sandboxed app without network access)"),
        (.usage, "usage error"),
        (.outputFailed, "could not write to standard output"),
    ])

    static let hostHelp = table([
        (.success, "reachable"),
        (.notReachable, "not reachable"),
        (.serviceUnavailable, "the chosen provider cannot answer (with --watch: waits instead)"),
        (.refused, "reachd refused (invalid host, monitor limit, not allowed)"),
        (.usage, "usage error"),
        (.outputFailed, "could not write to standard output"),
    ])

    static let waitHelp = table([
        (.success, "the condition holds"),
        (.notReachable, "it does not: timed out, or at once with --timeout 0 or -x"),
        (.serviceUnavailable, "the chosen provider still cannot answer at the timeout"),
        (.refused, "reachd refused (invalid host, monitor limit, not allowed)"),
        (.cannotEvaluate, "can never hold here (online, and no connectivity check can run)"),
        (.usage, "usage error (a contradiction, a value out of range)"),
        (.outputFailed, "could not write to standard output (--json)"),
    ])

    /// `EXIT STATUS` and one line per status, each short enough that `--help` does not wrap it.
    private static func table(_ rows: [(ExitStatus, String)]) -> String {
        (["EXIT STATUS"] + rows.map { status, text in
            let code = String(status.rawValue)
            return "  " + code + String(repeating: " ", count: 4 - code.count) + text
        }).joined(separator: "\n")
    }

    /// The exit for a failed call, after saying why on standard error.
    static func failure(_ error: ReachabilityError) -> ExitCode {
        Output.error(Explanation(error).sentence)
        if error.name == ReachabilityError.invalidChoice { return ExitCode(usage.rawValue) }
        return ExitCode((error.isServiceUnavailable ? serviceUnavailable : refused).rawValue)
    }
}
