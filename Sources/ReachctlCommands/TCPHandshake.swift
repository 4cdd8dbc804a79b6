import Glibc

/// `reachctl wait --host NAME:PORT`: whether a TCP connection to the host's port can be made
/// now. Resolves the name, tries each address with a non-blocking `connect`, and closes at
/// once; nothing is sent.
enum TCPHandshake {
    /// Splits `NAME:PORT` or `[IPV6]:PORT`; a bare IPv6 literal or name has no port.
    /// nil when a port is given but is not 1-65535.
    static func split(_ text: String) -> (host: String, port: UInt16?)? {
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { return rest.isEmpty ? (host, nil) : nil }
            guard let port = UInt16(rest.dropFirst()), port > 0 else { return nil }
            return (host, port)
        }
        let colons = text.filter { $0 == ":" }.count
        guard colons == 1, let colon = text.lastIndex(of: ":") else { return (text, nil) }
        guard let port = UInt16(text[text.index(after: colon)...]), port > 0 else { return nil }
        return (String(text[..<colon]), port)
    }

    /// What one attempt came to.
    enum Outcome: Sendable, Equatable {
        case connected
        /// Why not, in words: `connection refused`, `timed out after 5 s`, `no route to host`,
        /// `name not resolved (no such name)`; with several addresses, each one's.
        case failed(String)
    }

    /// Tries each address of `host` in the resolver's order, each for at most `timeout`
    /// milliseconds, until one connects. Blocks: run it with `runBlocking`.
    static func attempt(host: String, port: UInt16, timeout: Int32) -> Outcome {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0 else { return .failed("name not resolved (\(NameLookup.reason(status)))") }
        defer { freeaddrinfo(list) }
        var failures: [(address: String, cause: String)] = []
        var entry = list
        while let current = entry?.pointee {
            guard let cause = failure(connecting: current, timeout: timeout) else { return .connected }
            failures.append((NameLookup.numericAddress(current.ai_addr, current.ai_addrlen) ?? "?", cause))
            entry = current.ai_next
        }
        // One cause for all addresses is said once; different ones, address by address.
        if Set(failures.map(\.cause)).count <= 1 { return .failed(failures.first?.cause ?? "no address") }
        return .failed(failures.map { "\($0.address): \($0.cause)" }.joined(separator: ", "))
    }

    /// nil when the connection completes within `timeout` milliseconds; else why not.
    private static func failure(connecting address: addrinfo, timeout: Int32) -> String? {
        let descriptor = socket(address.ai_family, address.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                                address.ai_protocol)
        guard descriptor >= 0 else { return describe(errno) }
        defer { close(descriptor) }
        if connect(descriptor, address.ai_addr, address.ai_addrlen) == 0 { return nil }
        guard errno == EINPROGRESS else { return describe(errno) }
        var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        let polled = poll(&ready, 1, timeout)
        guard polled == 1 else {
            return polled == 0 ? "timed out after \(Seconds.text(of: .milliseconds(timeout))) s" : describe(errno)
        }
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return describe(errno) }
        return error == 0 ? nil : describe(error)
    }

    /// `connection refused`, `no route to host`, `network is unreachable`: the C library's words.
    private static func describe(_ code: Int32) -> String {
        code == ETIMEDOUT ? "timed out" : NameLookup.lowercasedFirst(String(cString: strerror(code)))
    }
}
