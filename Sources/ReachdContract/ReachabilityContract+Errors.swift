import ReachdDBus

extension ReachdContract {
    /// reachd's own error names (`io.reachd.Reachability1.Error.*`), as the service answers them
    /// and the client recognises them.
    public enum ErrorNames {
        /// The host is neither a DNS name nor an IP address literal reachd accepts.
        public static let invalidHost: ErrorName = "io.reachd.Reachability1.Error.InvalidHost"
        /// The per-connection or global cap on host monitors is reached.
        public static let limitExceeded: ErrorName = "io.reachd.Reachability1.Error.LimitExceeded"
        /// Only the connection that made a monitor may release it.
        public static let notOwner: ErrorName = "io.reachd.Reachability1.Error.NotOwner"
        /// reachd could not get an answer it trusts right now (the kernel did not answer a route
        /// lookup); the call may be repeated. Never a statement about the network.
        public static let tryAgain: ErrorName = "io.reachd.Reachability1.Error.TryAgain"
        /// The caller may not ask: a sandboxed (Flatpak) app without network access of its own.
        public static let notAllowed: ErrorName = "io.reachd.Reachability1.Error.NotAllowed"
        /// The caller is in another network namespace than reachd: an answer for a host or a path
        /// would be another namespace's (contract 4, §2.1 names it without the interface's `1`).
        public static let otherNetworkNamespace: ErrorName = "io.reachd.Error.OtherNetworkNamespace"
        /// The caller runs in a PID namespace reachd cannot see into (the bus gives its process ID
        /// as 0), so reachd cannot tell which network namespace it is in, nor whether it is a
        /// sandboxed app: every call is refused, and a client asks another provider, as for
        /// `OtherNetworkNamespace`.
        public static let unknownNetworkNamespace: ErrorName = "io.reachd.Error.UnknownNetworkNamespace"
    }

    public static func invalidHost(_ message: String) -> DBusError {
        DBusError(name: ErrorNames.invalidHost, message: message)
    }
    public static func limitExceeded(_ message: String) -> DBusError {
        DBusError(name: ErrorNames.limitExceeded, message: message)
    }
    public static func notOwner(_ message: String) -> DBusError {
        DBusError(name: ErrorNames.notOwner, message: message)
    }
    public static func tryAgain(_ message: String) -> DBusError {
        DBusError(name: ErrorNames.tryAgain, message: message)
    }
    public static func notAllowed(_ message: String) -> DBusError {
        DBusError(name: ErrorNames.notAllowed, message: message)
    }
    public static func otherNetworkNamespace(_ message: String) -> DBusError {
        DBusError(name: ErrorNames.otherNetworkNamespace, message: message)
    }
    public static func unknownNetworkNamespace(_ message: String) -> DBusError {
        DBusError(name: ErrorNames.unknownNetworkNamespace, message: message)
    }
}
