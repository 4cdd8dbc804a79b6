import ReachdCore

/// reachd's own connectivity check as configured (`[connectivity]` in reachd.conf, or
/// `--connectivity-uri` and friends): NetworkManager's keys, with NetworkManager's defaults.
/// Without a URI there is no configuration at all, and no check.
///
/// ```swift
/// let check = try ConnectivityCheckConfiguration(uri: "http://fedoraproject.org/static/hotspot.txt", response: "OK")
/// check.host   // "fedoraproject.org"
/// check.port   // 80
/// ```
public struct ConnectivityCheckConfiguration: Sendable, Equatable {
    /// Why a URI cannot be probed.
    public struct InvalidURI: Error, CustomStringConvertible {
        public let uri: String
        public let reason: String
        public var description: String { "connectivity check URI \"\(uri)\": \(reason)" }
    }

    public let uri: String
    /// The body's expected start; `""`: a 204 is expected.
    public let response: String
    /// How often the check runs while there is a path; zero: only on a change and on `CheckConnectivity()`.
    public let interval: Duration
    /// Bounds one whole check: the name's lookup, the connection and the answer.
    public let timeout: Duration
    /// `User-Agent` (reachd gives `reachd/VERSION`).
    public let userAgent: String

    /// The host (a name, or an address literal without brackets), the port, and what is asked for.
    public let host: String
    public let port: UInt16
    public let target: String

    public init(uri: String, response: String = "NetworkManager is online", interval: Duration = .seconds(300),
                timeout: Duration = .seconds(20), userAgent: String = "reachd") throws(InvalidURI) {
        func invalid(_ reason: String) -> InvalidURI { InvalidURI(uri: uri, reason: reason) }
        guard uri.lowercased().hasPrefix("http://") else {
            throw invalid("only http:// is probed (a portal cannot answer https:// in its own name)")
        }
        guard uri.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else { throw invalid("spaces, control or non-ASCII characters") }
        let rest = uri.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        var path = String(rest.dropFirst(authority.count).prefix { $0 != "#" })
        if path.isEmpty { path = "/" } else if path.hasPrefix("?") { path = "/" + path }
        guard !authority.contains("@") else { throw invalid("user information is not sent") }
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw invalid("an unclosed [") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw invalid("text after ]") }
                portText = after.dropFirst()
            }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else { throw invalid("no host") }
        var port: UInt16 = 80
        if let portText, !portText.isEmpty {
            guard let number = UInt16(portText), number > 0 else { throw invalid("port \(portText)") }
            port = number
        }
        // Within a year, as reachd's options are (OptionRange): a longer Duration traps where a
        // timer or Swift's sleep converts it, and kills reachd by SIGILL.
        guard interval >= .zero else { throw invalid("a negative interval") }
        guard interval <= OptionRange.longestDuration else { throw invalid("an interval longer than a year") }
        guard timeout > .zero else { throw invalid("the timeout must be positive") }
        guard timeout <= OptionRange.longestDuration else { throw invalid("a timeout longer than a year") }
        self.uri = uri
        self.response = response
        self.interval = interval
        self.timeout = timeout
        self.userAgent = userAgent
        self.host = String(host)
        self.port = port
        self.target = path
    }

    /// `Host:` as the request sends it.
    var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == 80 ? name : "\(name):\(port)"
    }

    /// The request, byte for byte.
    var request: [UInt8] {
        Array("GET \(target) HTTP/1.1\r\nHost: \(hostHeader)\r\nUser-Agent: \(userAgent)\r\nAccept: */*\r\nConnection: close\r\n\r\n".utf8)
    }

    /// An absolute URL for a redirect's `Location` (which may be relative).
    func absolute(_ location: String) -> String {
        if Self.hasScheme(location) { return location }
        if location.hasPrefix("//") { return "http:" + location }
        if location.hasPrefix("/") { return "http://\(hostHeader)\(location)" }
        let directory = target.prefix { $0 != "?" }
        let base = directory.lastIndex(of: "/").map { directory[...$0] } ?? "/"
        return "http://\(hostHeader)\(base)\(location)"
    }

    /// Whether `location` starts with a scheme and `://` (RFC 3986: a letter, then letters,
    /// digits, `+`, `-` or `.`), so `/login?next=http://x` stays relative. Spelled without
    /// `String.contains(String)`: that lives in _StringProcessing, which links the regex engine
    /// into reachd (+1.65 MB stripped, +0.8 MiB idle RSS; docs/contributors/benchmarks.md, "Installed size").
    static func hasScheme(_ location: String) -> Bool {
        guard let colon = location.firstIndex(of: ":"), location[colon...].hasPrefix("://") else { return false }
        let scheme = location[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter else { return false }
        return scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }
    }
}
