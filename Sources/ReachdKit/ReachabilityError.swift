internal import ReachdDBus
internal import ReachdContract

/// Why a call to reachd failed, by the D-Bus error name the bus or the service answered with.
///
/// ```swift
/// do {
///     _ = try await NetworkReachabilityManager.checkHost("bad..name")
/// } catch let error as ReachabilityError where error.name == ReachabilityError.invalidHost {
///     print("not a host name:", error.message)
/// }
/// ```
public struct ReachabilityError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The D-Bus error name, e.g. `io.reachd.Reachability1.Error.InvalidHost`.
    public var name: String
    /// The sentence that came with it.
    public var message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    public var description: String { "\(name): \(message)" }

    /// The host is neither a DNS name nor an IP address literal.
    public static let invalidHost = ReachdContract.ErrorNames.invalidHost.rawValue
    /// The service's per-connection or global cap on host monitors is reached.
    public static let limitExceeded = ReachdContract.ErrorNames.limitExceeded.rawValue
    /// The service could not get an answer it trusts right now (the kernel did not answer a
    /// route lookup); asking again later may succeed.
    public static let tryAgain = ReachdContract.ErrorNames.tryAgain.rawValue
    /// The service refuses this app: it runs in a sandbox (Flatpak) without network access of
    /// its own (`--share=network`), so the service's answers would not describe its network.
    /// The manager then reports `.unknown`, and this error, with the sentence, as `lastError`.
    public static let notAllowed = ReachdContract.ErrorNames.notAllowed.rawValue
    /// The service does not offer this (an older reachd), or there is no session bus.
    public static let notSupported = "org.freedesktop.DBus.Error.NotSupported"
    /// reachd is not running and D-Bus cannot start it (no activation file installed).
    public static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
    /// The name has no owner (the service left while the call was made).
    public static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
    /// The connection to the session bus failed or was lost.
    public static let disconnected = "org.freedesktop.DBus.Error.Disconnected"
    /// No answer in time.
    public static let noReply = "org.freedesktop.DBus.Error.NoReply"
    /// The reachd asked answers for another network namespace than this process's: its answers
    /// would be another machine's (reachd's own error for a host question, and the library's for
    /// a reachd it was told to use).
    public static let otherNetworkNamespace = ReachdContract.ErrorNames.otherNetworkNamespace.rawValue
    /// The reachd asked cannot see this process (it runs in another PID namespace: the bus gives
    /// its process ID as 0), so it cannot tell which network namespace this process is in, and
    /// refuses; the library asks the next provider, as for `otherNetworkNamespace`.
    public static let unknownNetworkNamespace = ReachdContract.ErrorNames.unknownNetworkNamespace.rawValue
    /// `REACHD_SERVICE` names no provider.
    public static let invalidChoice = "io.reachd.Error.InvalidServiceChoice"
    /// reachd's engine could not run in this process (it could not open the kernel's routing socket).
    public static let inProcessFailed = "io.reachd.Error.InProcessFailed"

    /// libdbus's errors for a session bus that cannot be connected to: no socket, nobody
    /// listening, an address that is no D-Bus address (`DBUS_SESSION_BUS_ADDRESS=garbage`),
    /// a failed handshake. None of them is reachd refusing anything.
    static let connectionFailureNames: Set<String> = [
        "org.freedesktop.DBus.Error.FileNotFound", "org.freedesktop.DBus.Error.NoServer",
        "org.freedesktop.DBus.Error.BadAddress", "org.freedesktop.DBus.Error.IOError",
        "org.freedesktop.DBus.Error.AuthFailed", "org.freedesktop.DBus.Error.NoNetwork",
        "org.freedesktop.DBus.Error.Timeout",
    ]

    /// Errors that say the bus or the service is not there, as opposed to the service refusing.
    private static let unavailableNames: Set<String> = connectionFailureNames.union([
        serviceUnknown, nameHasNoOwner, disconnected, noReply, "org.freedesktop.DBus.Error.TimedOut",
        otherNetworkNamespace, unknownNetworkNamespace, inProcessFailed,
    ])

    /// True when the session bus could not be connected to (its address names no bus that answers,
    /// or is not an address at all).
    public var isSessionBusUnusable: Bool { hasNoSessionBus || Self.connectionFailureNames.contains(name) }

    /// True when there was no session bus at all to connect to: `DBUS_SESSION_BUS_ADDRESS` is not
    /// set and `$XDG_RUNTIME_DIR/bus` does not exist (no bus answered; the name is only a label).
    public private(set) var hasNoSessionBus = false

    /// Which provider failed (reachd on the session or the system bus, or the engine in this
    /// process), where the library knows; nil for an error of no one provider.
    public internal(set) var provider: ReachabilityProvider?

    /// The environment variable that named the bus that could not be connected to, as
    /// `NAME=value` (`DBUS_SESSION_BUS_ADDRESS=garbage`); nil when the address was the usual one.
    public internal(set) var busAddressSetting: String?

    /// True when the provider was set up to answer and could not: reachd is installed for
    /// D-Bus activation and did not start (`Spawn.*`, `org.freedesktop.systemd1.*`), or the bus
    /// address the environment sets cannot be used. Choosing by itself, the library passes such a
    /// provider over for the next (`ReachabilityUpdate.passedOver`); one merely absent (no bus,
    /// reachd not installed) is no news.
    public var isFailedSetUp: Bool {
        busAddressSetting != nil || name.hasPrefix("org.freedesktop.DBus.Error.Spawn.")
            || name.hasPrefix("org.freedesktop.systemd1.")
    }

    /// This error, said of `provider`.
    func of(_ provider: ReachabilityProvider) -> ReachabilityError {
        var error = self
        error.provider = provider
        return error
    }

    /// True when the failure means "reachd cannot be reached", as opposed to the service
    /// refusing the request: the bus is missing, the service is not there and cannot be
    /// activated (by the bus itself, `Spawn.*`, or through systemd, `org.freedesktop.systemd1.*`),
    /// or it did not answer.
    public var isServiceUnavailable: Bool {
        hasNoSessionBus || Self.unavailableNames.contains(name) || name.hasPrefix("org.freedesktop.DBus.Error.Spawn.")
            || name.hasPrefix("org.freedesktop.systemd1.")
    }

    /// The provider is simply not there: no session bus, no socket at the usual address, reachd
    /// not installed. Where another provider failed for a reason of its own, that reason says more.
    var meansAbsent: Bool {
        hasNoSessionBus || name == Self.serviceUnknown
            || (busAddressSetting == nil && ["org.freedesktop.DBus.Error.FileNotFound", "org.freedesktop.DBus.Error.NoServer"].contains(name))
    }

    /// The exit status of a reachd that D-Bus activation started and that exited before taking
    /// its name (`Spawn.ChildExited`: "Process io.reachd.Reachability1 exited with status 64");
    /// nil for any other error. 64 (EX_USAGE) is reachd refusing its configuration file or
    /// command line, which `reachd --check-config` explains.
    ///
    /// ```swift
    /// if manager.lastError?.reachdExitStatus == 64 {
    ///     print("reachd refuses its configuration: run reachd --check-config")
    /// }
    /// ```
    public var reachdExitStatus: Int32? {
        guard name == "org.freedesktop.DBus.Error.Spawn.ChildExited" else { return nil }
        // Word by word: this library links no Foundation (nor the regex engine).
        let words = message.split(separator: " ")
        for index in words.indices.dropLast(3)
        where words[index] == "exited" && words[index + 1] == "with" && words[index + 2] == "status" {
            return Int32(words[index + 3])
        }
        return nil
    }

    init(_ error: any Error) {
        switch error {
        case let error as ReachabilityError:
            self = error
        case let error as NoSessionBusError:
            self.init(name: NoSessionBusError.name.rawValue, message: error.description)
            hasNoSessionBus = true
        case let error as DBusError:
            self.init(name: error.name.rawValue, message: error.message)
        case is CancellationError:
            self.init(name: "org.freedesktop.DBus.Error.Failed", message: "the call was cancelled")
        default:
            self.init(name: "org.freedesktop.DBus.Error.Failed", message: "\(error)")
        }
    }
}
