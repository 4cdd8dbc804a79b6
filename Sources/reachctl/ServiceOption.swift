import ArgumentParser
import Glibc
import ReachdKit

/// `--service session|system|in-process`: who answers, as `REACHD_SERVICE` chooses (contract 4,
/// §2.1). Without it, the nearest: reachd on the session bus, else on the system bus, else reachd's
/// engine run in reachctl itself, where no reachd shares this network namespace.
struct ServiceOption: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Who answers: session, system or in-process (default: the nearest; also REACHD_SERVICE).",
        valueName: "provider"))
    var service: Provider?

    enum Provider: String, ExpressibleByArgument, CaseIterable {
        case session, system
        case inProcess = "in-process"
    }

    /// Passes the choice to the library the way the environment does, for every manager and query;
    /// a `REACHD_SERVICE` that names no provider is a usage error (64), as a bad option is.
    func apply() throws {
        if let service {
            setenv(ServiceChoice.environmentVariable, service.rawValue, 1)
            return
        }
        guard let value = getenv(ServiceChoice.environmentVariable).map({ String(cString: $0) }), !value.isEmpty,
              ServiceChoice(environmentValue: value) == nil else { return }
        Output.error("\(ServiceChoice.environmentVariable)=\(value) names no provider: it is session, system or in-process")
        throw ExitCode(ExitStatus.usage.rawValue)
    }
}

extension ReachabilityProvider {
    /// Who answered, in words, for `status`.
    var answeredBy: String {
        switch self {
        case .session, .system: description
        case .inProcess: "in this process: no reachd on the session or system bus shares this network namespace"
        }
    }
}
