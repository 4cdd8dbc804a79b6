internal import ReachdDBus
import Glibc

/// Who answers a manager (contract 4, §2.1): reachd on the session bus, reachd on the system bus,
/// or reachd's engine run in this process, where no reachd shares its network namespace.
///
/// ```swift
/// for await update in NetworkReachabilityManager.shared.updates {
///     print(update.status, "from", update.service?.description ?? "nobody yet")
/// }
/// ```
public enum ReachabilityProvider: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case session
    case system
    case inProcess = "in-process"

    public var description: String {
        switch self {
        case .session: "reachd on the session bus"
        case .system: "reachd on the system bus"
        case .inProcess: "in this process"
        }
    }
}

/// Which provider a manager uses: the nearest that answers (`.automatic`: the session bus's reachd,
/// else the system bus's, else the engine in this process; a reachd in another network namespace
/// is never used), or one chosen. A chosen one that cannot serve is an error that says why, never
/// a silent fall to the next.
///
/// `REACHD_SERVICE=session|system|in-process` in the environment chooses for `.automatic`.
///
/// ```swift
/// let manager = NetworkReachabilityManager(.defaultRoute, service: .inProcess)
/// ```
public enum ServiceChoice: Sendable, Hashable, CustomStringConvertible {
    case automatic
    /// reachd on the session bus at `address` (nil: `DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`).
    case session(address: String? = nil)
    /// reachd on the system bus at `address` (nil: `DBUS_SYSTEM_BUS_ADDRESS`, else the standard socket).
    case system(address: String? = nil)
    /// The engine in this process (the kernel; NetworkManager, systemd-networkd or ConnMan when the
    /// system bus has them; reachd's own connectivity check when `REACHD_CONNECTIVITY_URI` is set).
    case inProcess

    /// `REACHD_SERVICE`'s value: `session`, `system`, `in-process`; nil for anything else.
    public init?(environmentValue: String) {
        switch environmentValue {
        case "session": self = .session()
        case "system": self = .system()
        case "in-process", "inprocess": self = .inProcess
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .automatic: "automatic"
        case .session: "session"
        case .system: "system"
        case .inProcess: "in-process"
        }
    }

    /// The environment variable that chooses for `.automatic`.
    public static let environmentVariable = "REACHD_SERVICE"

    /// `.automatic` resolved by `REACHD_SERVICE`; a value that names no provider is an error.
    func resolved() throws(ReachabilityError) -> ServiceChoice {
        guard self == .automatic, let value = getenv(Self.environmentVariable).map({ String(cString: $0) }), !value.isEmpty else {
            return self
        }
        guard let chosen = ServiceChoice(environmentValue: value) else {
            throw ReachabilityError(name: ReachabilityError.invalidChoice,
                                    message: "\(Self.environmentVariable)=\(value) names no provider: it is session, system or in-process")
        }
        return chosen
    }

    /// The providers to try, nearest first, with where each is.
    var candidates: [ProviderCandidate] {
        switch self {
        case .automatic: [.bus(.session, address: nil), .bus(.system, address: nil), .inProcess]
        case .session(let address): [.bus(.session, address: address)]
        case .system(let address): [.bus(.system, address: address)]
        case .inProcess: [.inProcess]
        }
    }

    var isExplicit: Bool { self != .automatic }
}

/// One place to ask.
enum ProviderCandidate: Sendable, Hashable {
    case bus(ReachabilityProvider, address: String?)
    case inProcess

    var provider: ReachabilityProvider {
        switch self {
        case .bus(let provider, _): provider
        case .inProcess: .inProcess
        }
    }

    /// A connection to this candidate's bus: its address, else the usual session or system bus.
    /// Where that bus does not exist, libdbus fails at once (FileNotFound, naming the socket).
    func connect() async throws(ReachabilityError) -> Connection {
        do {
            switch self {
            case .bus(_, let address?): return try await Connection.open(address: address)
            case .bus(.system, nil): return try await Connection.system()
            case .bus(_, nil): return try await Connection.session()
            case .inProcess: preconditionFailure("the engine in this process has no bus")
            }
        } catch {
            var failure = ReachabilityError(error).of(provider)
            if case .bus(let provider, nil) = self, !failure.hasNoSessionBus {
                let variable = provider == .system ? "DBUS_SYSTEM_BUS_ADDRESS" : "DBUS_SESSION_BUS_ADDRESS"
                if let value = getenv(variable).map({ String(cString: $0) }), !value.isEmpty {
                    failure.busAddressSetting = "\(variable)=\(value)"
                }
            }
            throw failure
        }
    }
}
