import CommandGrammar
import Glibc
import ReachdKit

/// `--service session|system|in-process`: who answers, as `REACHD_SERVICE` chooses (contract 4,
/// §2.1). Without it, the nearest: reachd on the session bus, else on the system bus, else reachd's
/// engine run in reachctl itself, where no reachd shares this network namespace.
struct ServiceOption {
    static let option = Option.value(
        "service", name: "provider",
        help: "Who answers: session, system or in-process (default: the nearest; also REACHD_SERVICE).",
        allowed: Provider.allCases.map(\.rawValue))

    let service: Provider?

    enum Provider: String, CaseIterable {
        case session, system
        case inProcess = "in-process"
    }

    /// The grammar took only the provider names.
    init(_ invocation: Invocation) {
        service = invocation.value(Self.option.long).flatMap(Provider.init(rawValue:))
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

extension ReachabilityUpdate {
    /// Who answered, in words, for `status` and `path`; nil while nobody does.
    var answeredBy: String? {
        guard let service else { return nil }
        switch service {
        case .session, .system:
            return service.description
        case .inProcess where !passedOver.isEmpty:
            let names = passedOver.map { error in
                let bus = error.provider == .system ? "the system bus" : "the session bus"
                return error.busAddressSetting == nil ? "reachd on \(bus)" : bus
            }
            return "in this process: \(names.joined(separator: " and ")) could not answer (see above)"
        case .inProcess:
            return "in this process: no reachd on the session or system bus shares this network namespace"
        }
    }
}
