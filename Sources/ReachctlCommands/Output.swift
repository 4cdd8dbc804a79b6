import Glibc
import ReachdKit

/// How reachctl prints: human lines with the localized status and the flag names, or JSON.
enum Output {
    /// One line on standard output, written at once (not left in a buffer), so a reader of
    /// `watch` sees each change as it happens, through a pipe or into a file too, and a SIGTERM
    /// loses nothing. A line that cannot be written ends reachctl with exit status 74: an answer
    /// that did not reach its reader is no success. A full disk (`> /dev/full`) says so on
    /// standard error; a reader that left (`| head -1`, libdbus ignores SIGPIPE) ends it quietly.
    static func line(_ text: String) {
        Self.text(text + "\n")
    }

    /// Text that ends its own lines (help, a completion script), as `line` writes.
    static func text(_ text: String) {
        guard let failure = write(text, to: STDOUT_FILENO) else { return }
        if failure != EPIPE { error("cannot write to standard output: \(String(cString: strerror(failure)))") }
        exit(ExitStatus.outputFailed.rawValue)
    }

    /// An error line: `reachctl: ` and the sentence, as every error reachctl prints starts.
    static func error(_ text: String) {
        write("reachctl: " + text + "\n", to: STDERR_FILENO)
    }

    /// Lines already in reachctl's words (a usage error with its usage lines).
    static func standardError(_ text: String) {
        write(text + "\n", to: STDERR_FILENO)
    }

    /// Straight to the descriptor, as FileHandle did: reachctl links no Foundation (and so no ICU).
    /// Returns the errno of a failed write, nil when every byte was written.
    @discardableResult
    private static func write(_ text: String, to descriptor: Int32) -> Int32? {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return written < 0 ? errno : EIO }
            bytes = bytes.dropFirst(written)
        }
        return nil
    }

    /// The locale variables that choose the status's language.
    static var environment: [String: String] {
        var values: [String: String] = [:]
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = getenv(name) { values[name] = String(cString: value) }
        }
        return values
    }

    static func localized(_ status: NetworkReachabilityStatus) -> String {
        status.localizedString(environment: environment)
    }

    /// `status`: the localized status, then one fact per line.
    static func block(_ update: ReachabilityUpdate) -> String {
        let path = NetworkPath(update)
        var text = """
        \(localized(update.status))
          flags:        \(update.flags)
          interface:    \(interfaceText(update))
          metered:      \(update.isMetered ? "yes" : "no")
          connectivity: \(update.connectivity.rawValue)
          backend:      \(update.backend?.rawValue ?? "none")
          level:        \(path.level.rawValue)
        """
        if let checker = update.connectivityCheckSource {
            let name = ["networkmanager": "NetworkManager", "connman": "ConnMan"][checker] ?? checker
            text += "\n  checked by:   \(name)"
        }
        if path.unsatisfiedReason != .none { text += "\n  reason:       \(path.unsatisfiedReason.rawValue)" }
        // Behind a portal reachd's own check found: where to log in.
        if !update.captivePortalURL.isEmpty { text += "\n  log in at:    \(update.captivePortalURL)" }
        text += "\n  source:       \(update.source?.rawValue ?? "none")"
        if let answeredBy = update.answeredBy { text += "\n  answered by:  \(answeredBy)" }
        // Under an override, what the service did not follow.
        if update.source == .netlinkOverride, let state = update.networkManagerState {
            text += "\n  note:         NetworkManager says \(state)"
        } else if update.source == .netlinkOverride, let state = update.connmanState {
            text += "\n  note:         ConnMan says \(state)"
        }
        if !path.availableInterfaces.isEmpty {
            let interfaces = path.availableInterfaces.map { "\($0.name) (\($0.type.rawValue)\($0.hasInternetPath ? ", internet" : ""))" }
            text += "\n  interfaces:   \(interfaces.joined(separator: ", "))"
        }
        return text
    }

    /// `watch`, `host --watch`: one line per change. The default route's line ends with why the
    /// path is not satisfied, when it is not: a change of only the reason (connecting, then no
    /// route) is a line that says so, not the same line twice.
    static func line(_ update: ReachabilityUpdate, host: String?) -> String {
        var text = host.map { "\($0): " } ?? ""
        text += "\(localized(update.status))  flags: \(update.flags)  interface: \(interfaceText(update))"
        guard host == nil else { return text }
        text += "  metered: \(update.isMetered ? "yes" : "no")"
        let reason = NetworkPath(update).unsatisfiedReason
        if reason != .none { text += "  reason: \(reason.rawValue)" }
        return text
    }

    /// `host`: the one-shot answer of `CheckHost`, and who gave it.
    static func line(host: String, status: NetworkReachabilityStatus, flags: ReachabilityFlags,
                     service: ReachabilityProvider) -> String {
        "\(host): \(localized(status))  flags: \(flags)  answered by: \(service)"
    }

    private static func interfaceText(_ update: ReachabilityUpdate) -> String {
        update.interface.isEmpty ? update.interfaceType.rawValue : "\(update.interface) (\(update.interfaceType.rawValue))"
    }

    static func json(_ report: some JSONRepresentable) -> String {
        report.jsonValue.text
    }
}

/// The JSON form, one object per line; keys follow the D-Bus property names in lower camel case.
/// Facts the source does not publish (a host's metered state, `CheckHost`'s interface) are left out.
struct Report {
    var host: String?
    var status: Int32
    var statusString: String
    var localizedStatusString: String
    var flags: UInt32
    var flagNames: [String]
    var reachable: Bool
    var reachableViaWWAN: Bool
    var reachableViaWiFi: Bool
    var interfaceType: String?
    var interface: String?
    var metered: Bool?
    var connectivity: String?
    var backend: String?
    var level: String?
    var unsatisfiedReason: String?
    var source: String?
    /// `Details`' `check-source` and `CaptivePortalURL`, when there are such.
    var connectivityCheckSource: String?
    var captivePortalURL: String?
    /// Who answered: `session`, `system` or `in-process`.
    var service: String?

    init(status: NetworkReachabilityStatus, flags: ReachabilityFlags, host: String? = nil) {
        self.host = host
        self.status = status.rawValue
        statusString = status.string
        localizedStatusString = Output.localized(status)
        self.flags = flags.rawValue
        flagNames = flags.names
        reachable = status.isReachable
        reachableViaWWAN = status.isReachableViaWWAN
        reachableViaWiFi = status.isReachableViaWiFi
    }

    init(_ update: ReachabilityUpdate, host: String? = nil) {
        self.init(status: update.status, flags: update.flags, host: host)
        service = update.service?.rawValue
        interfaceType = update.interfaceType.rawValue
        interface = update.interface
        if host == nil {
            metered = update.isMetered
            connectivity = update.connectivity.rawValue
            backend = update.backend?.rawValue ?? ""
            let path = NetworkPath(update)
            level = path.level.rawValue
            unsatisfiedReason = path.unsatisfiedReason.rawValue
            source = path.source?.rawValue ?? ""
            connectivityCheckSource = update.connectivityCheckSource
            captivePortalURL = update.captivePortalURL.isEmpty ? nil : update.captivePortalURL
        }
    }
}

extension Report: JSONRepresentable {
    /// Keys sorted, absent facts left out: what JSONEncoder with `.sortedKeys` and
    /// `.withoutEscapingSlashes` printed before reachctl stopped linking Foundation.
    var jsonValue: JSONValue {
        var fields: [String: JSONValue] = [
            "status": .number(Int(status)), "statusString": .string(statusString),
            "localizedStatusString": .string(localizedStatusString), "flags": .number(Int(flags)),
            "flagNames": .array(flagNames.map(JSONValue.string)), "reachable": .bool(reachable),
            "reachableViaWWAN": .bool(reachableViaWWAN), "reachableViaWiFi": .bool(reachableViaWiFi),
        ]
        for (key, value) in [("host", host), ("interfaceType", interfaceType), ("interface", interface),
                             ("connectivity", connectivity), ("backend", backend), ("level", level),
                             ("unsatisfiedReason", unsatisfiedReason), ("source", source),
                             ("connectivityCheckSource", connectivityCheckSource), ("captivePortalURL", captivePortalURL),
                             ("service", service)] {
            if let value { fields[key] = .string(value) }
        }
        if let metered { fields["metered"] = .bool(metered) }
        return .object(fields)
    }
}
