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

    /// Whether a connection to `host`:`port` completes within `timeout` (milliseconds).
    static func succeeds(host: String, port: UInt16, timeout: Int32) -> Bool {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0 else { return false }
        defer { freeaddrinfo(list) }
        var entry = list
        while let current = entry?.pointee {
            if connects(current, timeout: timeout) { return true }
            entry = current.ai_next
        }
        return false
    }

    private static func connects(_ address: addrinfo, timeout: Int32) -> Bool {
        let descriptor = socket(address.ai_family, address.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                                address.ai_protocol)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        if connect(descriptor, address.ai_addr, address.ai_addrlen) == 0 { return true }
        guard errno == EINPROGRESS else { return false }
        var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        guard poll(&ready, 1, timeout) == 1 else { return false }
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return false }
        return error == 0
    }
}
