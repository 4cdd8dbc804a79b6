import ReachdCore

/// An HTTP answer to the check's request, as far as it was read (at most 8 KiB), and the
/// verdict it gives (contract 3, §2.2; NetworkManager's rules).
///
/// ```swift
/// let answer = CheckAnswer(Array("HTTP/1.1 204 No Content\r\n\r\n".utf8))
/// answer?.verdict(expecting: "")   // (.full, nil)
/// ```
struct CheckAnswer: Sendable, Equatable {
    /// The most of an answer that is read.
    static let readLimit = 8 * 1024

    let status: Int
    /// Header names in lower case, values trimmed, in the answer's order.
    let headers: [(name: String, value: String)]
    let body: [UInt8]

    static func == (lhs: CheckAnswer, rhs: CheckAnswer) -> Bool {
        lhs.status == rhs.status && lhs.body == rhs.body
            && lhs.headers.map(\.name) == rhs.headers.map(\.name) && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }

    /// Parses what was read; nil when it is no HTTP answer at all (or the header did not end).
    init?(_ bytes: [UInt8]) {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else { return nil }
        let head = String(decoding: bytes[..<end], as: UTF8.self)
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        guard !lines.isEmpty else { return nil }
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]),
              (100...999).contains(status) else { return nil }
        self.status = status
        self.headers = lines.compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingSpaces)
        }
        self.body = Array(bytes[(end + separator.count)...])
    }

    func header(_ name: String) -> String? { headers.first { $0.name == name }?.value }

    /// The whole answer is here without waiting for the server to close: a status without a
    /// body (204, 304), or a body as long as `Content-Length` says. A server that keeps the
    /// connection open in spite of `Connection: close` then costs no timeout.
    var isComplete: Bool {
        if status == 204 || status == 304 { return true }
        guard let length = header("content-length").flatMap({ Int($0) }) else { return false }
        return body.count >= min(length, Self.readLimit)
    }

    /// The verdict, and a portal's `Location` when it gave one.
    func verdict(expecting response: String) -> (ConnectivityCheckResult.Verdict, location: String?) {
        if header("x-networkmanager-status")?.lowercased() == "online" { return (.full, nil) }
        switch status {
        case 300..<400:
            return (.portal, header("location").flatMap { $0.isEmpty ? nil : $0 })
        case 511:
            return (.portal, nil)
        case 204 where response.isEmpty:
            return (.full, nil)
        case 200..<300:
            if !response.isEmpty, body.starts(with: Array(response.utf8)) { return (.full, nil) }
            // Something answered in the check server's place: a login page.
            return (.portal, nil)
        default:
            // 404, 500 …: the server is not what the check expects, and no portal says so.
            return (.limited, nil)
        }
    }
}

private extension Substring {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
