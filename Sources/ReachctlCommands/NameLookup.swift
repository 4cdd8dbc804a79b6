import Glibc

/// reachctl's own lookup of a host name, for what reachd's answer cannot tell: a host reachd
/// calls Not Reachable with flags 0 either has no route, or its name does not resolve
/// (docs/app-developers/dbus-contract.md, "How a host is judged"), and `CheckHost` and a monitor answer the same (0, 0) for
/// both. Asking the resolver again, with the hints reachd uses, tells them apart; reachctl
/// runs where reachd runs, in the same session, so it reads the same resolver configuration.
enum NameLookup {
    enum Answer: Sendable, Equatable {
        /// The name resolves: its addresses, numeric, in the resolver's order.
        case addresses([String])
        /// It does not, and why, in words: `no such name`, `no usable answer from the DNS server`.
        case notResolved(String)
    }

    /// Whether `host` is an IP address literal (`192.0.2.1`, `2001:db8::1`, `fe80::1%eth0`),
    /// which is never looked up.
    static func isAddressLiteral(_ host: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        let address = host.split(separator: "%", maxSplits: 1).first.map(String.init) ?? host
        return inet_pton(AF_INET, address, &buffer) == 1 || inet_pton(AF_INET6, address, &buffer) == 1
    }

    /// glibc's EAI_NODATA (the name exists, with no address), which netdb.h declares only under
    /// _GNU_SOURCE and so Swift does not see.
    private static let glibcNoData: Int32 = -5

    /// Resolves `name` as reachd does (any family, `AI_ADDRCONFIG`). Blocks for as long as the
    /// resolver takes: run it with `runBlocking`.
    static func lookUp(_ name: String) -> Answer {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(name, nil, &hints, &list)
        guard status == 0 else { return .notResolved(Self.reason(status)) }
        defer { freeaddrinfo(list) }
        var addresses: [String] = []
        var entry = list
        while let current = entry?.pointee {
            if let text = numericAddress(current.ai_addr, current.ai_addrlen), !addresses.contains(text) {
                addresses.append(text)
            }
            entry = current.ai_next
        }
        return addresses.isEmpty ? .notResolved("the name has no address") : .addresses(addresses)
    }

    /// `getaddrinfo`'s failure in words. EAI_AGAIN covers a server that timed out, failed or
    /// refused: no answer about the name came back, which is all that can be said.
    static func reason(_ status: Int32) -> String {
        switch status {
        case EAI_NONAME: "no such name"
        case glibcNoData: "the name has no address"
        case EAI_AGAIN: "no usable answer from the DNS server"
        default: lowercasedFirst(String(cString: gai_strerror(status)))
        }
    }

    /// `192.0.2.1`, `2001:db8::1`: an address as text.
    static func numericAddress(_ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t) -> String? {
        guard let address else { return nil }
        var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(address, length, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0 else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func lowercasedFirst(_ text: String) -> String {
        text.prefix(1).lowercased() + text.dropFirst()
    }
}
